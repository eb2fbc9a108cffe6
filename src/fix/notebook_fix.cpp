#include "fix/notebook_fix.h"

#include <algorithm>
#include <set>

#include "core/suppression.h"
#include "fix/atomic_write.h"
#include "fix/edits.h"
#include "python/parser.h"

namespace stoker::fix {

NotebookFixResult fix_notebook(const SourceFile& source, AnalysisResult initial, const Settings& settings,
                               const FixLoopOptions& options) {
  NotebookFixResult out;
  const Notebook& original = *source.notebook;
  out.bytes = original.raw;
  out.analysis = initial;
  if (!original.writable_error.empty()) {
    out.error = original.writable_error;
    return out;
  }
  const size_t errors_before = python::count_syntax_errors(original.program);
  Notebook current = original;
  AnalysisResult analysis = std::move(initial);
  std::set<std::string> seen{original.program};
  std::set<std::string> warned;
  std::vector<AppliedFix> applied;
  auto refuse = [&](std::string why) {
    out.error = std::move(why);
    out.applied.clear();
    return out;
  };

  for (int round = 1;; ++round) {
    // One round as merge_fixes: fixes in order, each accepted unless it conflicts with one
    // already accepted; here also only when every edit lies inside one cell, off IPython syntax.
    std::vector<Edit> accepted;
    std::vector<const Fix*> taken;
    std::vector<AppliedFix> this_round;
    const uint32_t size = static_cast<uint32_t>(current.program.size());
    for (const auto& d : analysis.diagnostics) {
      if (!d.fix || !fix_is_applicable(*d.fix, options.unsafe)) continue;
      const Fix& fix = *d.fix;
      bool well_formed = true;
      for (size_t i = 0; i < fix.edits.size(); ++i) {
        const Edit& e = fix.edits[i];
        well_formed &= e.range.start <= e.range.end && e.range.end <= size;
        for (size_t j = 0; j < i; ++j) well_formed &= !edits_conflict(fix.edits[j], e);
      }
      if (!well_formed) {
        std::string w = "skipped a malformed fix: " + d.code + " (" + fix.title + ")";
        if (warned.insert(w).second) out.warnings.push_back(w);
        continue;
      }
      std::vector<std::vector<Edit>> cell_edits;
      std::string why;
      if (!split_notebook_edits(current, fix.edits, cell_edits, &why)) {
        std::string w = d.code + " fix not applied: " + why;
        if (warned.insert(w).second) out.warnings.push_back(w);
        continue;
      }
      auto same = [&](const Fix* f) {
        if (f->edits.size() != fix.edits.size()) return false;
        for (size_t i = 0; i < fix.edits.size(); ++i)
          if (!(f->edits[i].range == fix.edits[i].range) || f->edits[i].replacement != fix.edits[i].replacement) return false;
        return true;
      };
      if (std::any_of(taken.begin(), taken.end(), same)) {
        this_round.push_back({d.code, fix.title, fix.applicability});
        continue;
      }
      bool conflict = false;
      for (const auto& e : fix.edits)
        for (const auto& a : accepted) conflict |= edits_conflict(e, a);
      if (conflict) continue;  // deferred to the next round
      taken.push_back(&fix);
      accepted.insert(accepted.end(), fix.edits.begin(), fix.edits.end());
      this_round.push_back({d.code, fix.title, fix.applicability});
    }
    std::vector<std::vector<Edit>> cell_edits;
    std::vector<std::string> texts = current.texts();
    if (!accepted.empty()) {
      std::string why;
      if (!split_notebook_edits(current, accepted, cell_edits, &why)) return refuse(why);
      try {
        texts = apply_cell_edits(current, cell_edits);
      } catch (const std::exception& e) {
        return refuse(std::string("fix edits could not be applied: ") + e.what());
      }
    }
    if (texts == current.texts()) this_round.clear();
    if (this_round.empty()) break;  // converged
    if (round > options.max_rounds)
      return refuse("fixes did not converge after " + std::to_string(options.max_rounds) +
                    " rounds (still changing: " + describe(this_round) + "); notebook left unchanged");
    Notebook next = current.with_texts(texts);
    if (!seen.insert(next.program).second)
      return refuse("fixes cycle (" + describe(this_round) + " bring back an earlier text); notebook left unchanged");
    auto next_source = notebook_source(std::make_shared<Notebook>(next));
    AnalysisResult next_analysis = analyze(*next_source, settings);
    size_t errors_after = python::count_syntax_errors(next.program);
    if (errors_after > errors_before)
      return refuse("fixing " + describe(this_round) + " would introduce a syntax error (" +
                    std::to_string(errors_after) + " parse errors, " + std::to_string(errors_before) +
                    " before); notebook left unchanged");
    applied.insert(applied.end(), this_round.begin(), this_round.end());
    current = std::move(next);
    analysis = std::move(next_analysis);
  }
  if (applied.empty()) return out;
  out.bytes = original.render(current.texts());
  std::string error;
  out.source = make_source_file(original.path, out.bytes, error);
  if (!out.source) return refuse("the rewritten notebook does not parse (" + error + "); notebook left unchanged");
  out.analysis = std::move(analysis);
  out.applied = std::move(applied);
  return out;
}

bool write_notebook_ignore_comments(const SourceFile& source, const std::vector<Diagnostic>& diagnostics,
                                    size_t& added, size_t& skipped, std::string& error) {
  added = skipped = 0;
  const Notebook& nb = *source.notebook;
  std::vector<Edit> edits = add_ignore_edits(source, diagnostics, &skipped);
  if (edits.empty()) return true;
  if (!nb.writable_error.empty()) {
    error = nb.writable_error;
    return false;
  }
  std::vector<std::vector<Edit>> cell_edits;
  if (!split_notebook_edits(nb, edits, cell_edits, &error)) return false;
  std::string bytes = nb.render(apply_cell_edits(nb, cell_edits));
  if (!replace_file_atomically(source.path, bytes, nb.raw, error)) return false;
  added = edits.size();
  return true;
}

}  // namespace stoker::fix
