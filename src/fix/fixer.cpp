#include "fix/fixer.h"

#include <algorithm>
#include <set>

#include "python/parser.h"

namespace stoker::fix {

ParseErrorCounter parse_error_counter(Language language) {
  if (language == Language::Python)
    return [](const std::string& text, const AnalysisResult&) { return python::count_syntax_errors(text); };
  // C++: every error clang reports counts (the notices group them: one per file).
  return [](const std::string&, const AnalysisResult& analysis) {
    return std::max(analysis.parse_errors, analysis.notices.size());
  };
}

std::string describe(const std::vector<AppliedFix>& fixes) {
  std::set<std::string> codes;
  for (const auto& f : fixes) codes.insert(f.code);
  std::string out;
  for (const auto& c : codes) out += (out.empty() ? "" : ", ") + c;
  return out;
}

FixLoopResult fix_until_stable(const std::string& original, AnalysisResult initial, const Reanalyze& reanalyze,
                               const ParseErrorCounter& parse_errors, const FixLoopOptions& options) {
  FixLoopResult out;
  const std::string_view newline = dominant_newline(original);
  const size_t errors_before = parse_errors(original, initial);
  std::set<std::string> seen{original};
  std::string text = original;
  const AnalysisResult first_analysis = initial;
  AnalysisResult analysis = std::move(initial);
  std::vector<AppliedFix> applied;

  auto refuse = [&](std::string why) {
    out.error = std::move(why);
    out.text = original;
    out.analysis = first_analysis;
    out.applied.clear();
    out.rounds = 0;
    return out;
  };

  for (int round = 1;; ++round) {
    MergeResult merged = merge_fixes(text, analysis.diagnostics, options.unsafe, newline);
    for (auto& w : merged.invalid) out.warnings.push_back("skipped a malformed fix: " + w);
    if (merged.applied.empty() || merged.text == text) break;  // converged
    if (round > options.max_rounds)
      return refuse("fixes did not converge after " + std::to_string(options.max_rounds) +
                    " rounds (still changing: " + describe(merged.applied) + "); file left unchanged");
    if (!seen.insert(merged.text).second)
      return refuse("fixes cycle (" + describe(merged.applied) + " bring back an earlier text); file left unchanged");
    AnalysisResult next = reanalyze(merged.text);
    size_t errors_after = parse_errors(merged.text, next);
    if (errors_after > errors_before)
      return refuse("fixing " + describe(merged.applied) + " would introduce a syntax error (" +
                    std::to_string(errors_after) + " parse errors, " + std::to_string(errors_before) +
                    " before); file left unchanged");
    applied.insert(applied.end(), merged.applied.begin(), merged.applied.end());
    text = std::move(merged.text);
    analysis = std::move(next);
    out.rounds = round;
  }
  out.text = std::move(text);
  out.analysis = std::move(analysis);
  out.applied = std::move(applied);
  return out;
}

}  // namespace stoker::fix
