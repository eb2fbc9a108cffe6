// Suppression comments (rules.md, "Suppression"), applied after the front end:
//   Python: `# stoker: ignore[DL001, SY] -- reason`, `# noqa: DL001` (codes of other tools in a
//           noqa list are left alone; a blanket `# noqa` is not honoured: it belongs to flake8)
//   C++:    `// stoker: ignore[CU003] -- reason`, `// NOLINT(stoker-CU003)`,
//           `// NOLINTNEXTLINE(stoker-CU003)`, `// NOLINTBEGIN(stoker-CU003)` ... `// NOLINTEND(stoker-CU003)`
//           (clang-tidy's ranges: an END closes the last open BEGIN with the same list; bare
//           NOLINTBEGIN/NOLINTEND cover every code; unmatched ones are notices, suppressing nothing)
//   Both:   `stoker: ignore-file[CODES]` (or bare `ignore-file`: every code) in the comments that
//           open the file, before any code.
// A line suppression covers a diagnostic when it sits on any line of the diagnostic's range, or
// alone on the line directly above its first line. Unused suppressions become ST001 findings
// when Settings::report_unused_ignores is set.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/analyzer.h"
#include "core/rules.h"

namespace stoker {

inline constexpr const char* kUnusedSuppressionCode = "ST001";

struct Suppression {
  enum class Kind { Ignore, IgnoreFile, Noqa, Nolint, NolintNextLine, NolintBegin, NolintEnd };
  Kind kind = Kind::Ignore;
  uint32_t row = 0;         // 1-based line of the comment
  bool own_line = false;    // nothing but whitespace before the comment on its line
  TextRange comment;        // from the comment marker to the end of the line
  TextRange directive;      // the directive itself, reason included
  TextRange list;           // the code list (inside [], after `noqa:`, inside ()); empty when none
  std::vector<std::string> tokens;                     // the list's entries as written
  std::vector<std::optional<std::string>> selectors;   // per token: the stoker selector, or none (another tool's)
  bool blanket = false;     // suppresses every code (bare `stoker: ignore`, `ignore-file`)
  std::string reason;       // text after `--`
};

struct SuppressionScan {
  std::vector<Suppression> suppressions;
  // Per row (index row-1): true when a comment can be appended at the end of that line (the
  // line does not end inside a string or block comment, nor with a backslash continuation).
  std::vector<bool> clean_line_end;
  std::vector<Notice> problems;  // unknown codes, misplaced ignore-file
};

SuppressionScan scan_suppressions(const SourceFile& file, const RuleRegistry& rules = RuleRegistry::builtin());

// Removes suppressed diagnostics from `result` and, when settings.report_unused_ignores is set
// (and ST001 is enabled), adds an ST001 finding for each suppression entry that suppressed nothing.
void apply_suppressions(const SourceFile& file, const Settings& settings, AnalysisResult& result,
                        const RuleRegistry& rules = RuleRegistry::builtin());

// `--add-ignore`: the edits that add a `stoker: ignore[...]` comment for every diagnostic (merged
// into an existing `stoker: ignore[...]` on the same line). `skipped` counts diagnostics for which
// no line of their range can take a trailing comment.
std::vector<Edit> add_ignore_edits(const SourceFile& file, const std::vector<Diagnostic>& diagnostics,
                                   size_t* skipped = nullptr, const RuleRegistry& rules = RuleRegistry::builtin());

// Adds those comments to the file on disk (through a temporary file and a rename, keeping the
// file's mode and BOM). `added` counts comments written or extended. False with `error` set
// when the file cannot be written.
bool write_ignore_comments(const SourceFile& file, const std::vector<Diagnostic>& diagnostics, size_t& added,
                           size_t& skipped, std::string& error);

// Applies non-overlapping edits to a text.
std::string apply_edits(std::string_view text, std::vector<Edit> edits);

}  // namespace stoker
