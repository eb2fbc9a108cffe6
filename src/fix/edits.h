// Merging the edits of several fixes into one text: fixes whose edits do not conflict are
// applied together; a fix that conflicts with one already taken is deferred to the next round
// (the fix loop re-analyzes, so its diagnostic comes back with fresh offsets if it still holds).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.h"

namespace stoker::fix {

// True when the fix has a mechanical edit that this run may apply: safe fixes always, unsafe
// fixes with `unsafe`, display-only fixes never.
bool fix_is_applicable(const Fix& fix, bool unsafe);

// Two edits conflict when their ranges overlap, when both start at the same offset (the order of
// two insertions there would be arbitrary), or when one inserts strictly inside the other.
bool edits_conflict(const Edit& a, const Edit& b);

// Applies non-conflicting, in-bounds edits (in any order). Throws std::invalid_argument when an
// edit is out of bounds or two edits conflict.
std::string apply_edits(std::string_view text, std::vector<Edit> edits);

// "\n" or "\r\n": the style most lines of `text` end with (ties and no newline: "\n").
std::string_view dominant_newline(std::string_view text);
// Rewrites bare "\n" in `s` to `newline`.
std::string with_newlines(std::string_view s, std::string_view newline);

struct AppliedFix {
  std::string code;
  std::string title;
  Applicability applicability = Applicability::Safe;
};

struct MergeResult {
  std::string text;                  // the text with every accepted fix applied
  std::vector<AppliedFix> applied;   // accepted fixes, in diagnostic order
  size_t deferred = 0;               // applicable fixes that conflicted with an accepted one
  std::vector<std::string> invalid;  // fixes with out-of-bounds or self-overlapping edits (rule bugs)
};

// One round: takes the applicable fixes of `diags` in order, accepts each whose edits conflict
// with none accepted so far (a fix identical to an accepted one counts as applied once more),
// and applies them. Inserted newlines follow `newline`.
MergeResult merge_fixes(std::string_view text, const std::vector<Diagnostic>& diags, bool unsafe,
                        std::string_view newline = "\n");

}  // namespace stoker::fix
