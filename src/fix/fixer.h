// The fix loop: merge the applicable fixes of one analysis, re-analyze the new text, repeat
// until no fix applies. Bounded; refuses a result that has more parse errors than the original.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/analyzer.h"
#include "fix/edits.h"

namespace stoker::fix {

// Re-analyzes a text of the same file (BOM already stripped).
using Reanalyze = std::function<AnalysisResult(const std::string& text)>;
// The per-language "does it still parse/compile" hook: the number of parse errors of `text`,
// given its analysis. See parse_error_counter().
using ParseErrorCounter = std::function<size_t(const std::string& text, const AnalysisResult& analysis)>;

// Python: tree-sitter syntax errors (python::count_syntax_errors). C++ and others: the notices
// the analysis reported (the C++ front end reports parse and compile errors as notices), so a
// fixed C++ file must compile, in the mode it was analyzed in, at least as well as before.
ParseErrorCounter parse_error_counter(Language language);

struct FixLoopOptions {
  bool unsafe = false;
  int max_rounds = 16;
};

struct FixLoopResult {
  std::string text;                  // the fixed text; the original when `error` is set
  AnalysisResult analysis;           // analysis of `text`
  std::vector<AppliedFix> applied;   // every fix applied, over all rounds
  int rounds = 0;                    // rounds that changed the text
  bool changed() const { return !applied.empty() && error.empty(); }
  std::string error;                 // why the file was left untouched (non-convergence, new parse errors)
  std::vector<std::string> warnings; // fixes skipped as malformed (rule bugs)
};

// The codes of the fixes, sorted and comma-separated (for refusal messages).
std::string describe(const std::vector<AppliedFix>& fixes);

FixLoopResult fix_until_stable(const std::string& original, AnalysisResult initial, const Reanalyze& reanalyze,
                               const ParseErrorCounter& parse_errors, const FixLoopOptions& options);

}  // namespace stoker::fix
