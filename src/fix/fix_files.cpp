#include "fix/fix_files.h"

#include <map>

#include "core/runner.h"
#include "fix/atomic_write.h"
#include "fix/diff.h"
#include "fix/notebook_fix.h"
#include "output/paths.h"

namespace stoker::fix {

size_t FixRunSummary::applied() const {
  size_t n = 0;
  for (const auto& f : files)
    if (f.error.empty()) n += f.applied.size();
  return n;
}

size_t FixRunSummary::changed_files() const {
  size_t n = 0;
  for (const auto& f : files)
    if (f.error.empty() && f.before != f.after) ++n;
  return n;
}

namespace {

bool has_applicable_fix(const AnalysisResult& r, bool unsafe) {
  for (const auto& d : r.diagnostics)
    if (d.fix && fix_is_applicable(*d.fix, unsafe)) return true;
  return false;
}

}  // namespace

FixRunSummary fix_report(Report& report, const std::function<Settings(const std::string& path)>& settings_for,
                         const FixRunOptions& options) {
  FixRunSummary summary;
  for (auto& f : report.files) {
    if (!f.source || !has_applicable_fix(f.result, options.unsafe)) continue;
    // Isolation, as in the runner: a re-analysis that throws costs this file's fixes only.
    try {
      const SourceFile& src = *f.source;
      const std::string path = src.path;
      const Settings settings = settings_for(path);
      const bool bom = src.has_bom;
      auto reanalyze = [&](const std::string& text) { return analyze(SourceFile(path, text), settings); };
      FixLoopOptions loop_opts{options.unsafe, options.max_rounds};
      // One outcome for both kinds of file: notices, the atomic write, and on success the fixed
      // source and its analysis in place of the old (`install` runs only after a write).
      auto settle = [&](FileFixOutcome outcome, const std::vector<std::string>& warnings, size_t applied,
                        auto&& install) {
        for (const auto& w : warnings) f.result.notices.push_back({path, w, std::nullopt});
        if (!outcome.error.empty()) {
          f.result.notices.push_back({path, "fix not applied: " + outcome.error, std::nullopt});
        } else if (options.write && outcome.before != outcome.after) {
          std::string error;
          if (!replace_file_atomically(path, outcome.after, outcome.before, error)) {
            outcome.error = error;
            report.errors.push_back({path, "fix not written: " + error, std::nullopt});
          } else {
            report.fixed += applied;
            install();
          }
        }
        summary.files.push_back(std::move(outcome));
      };
      if (src.notebook) {  // the cells are fixed; the JSON around them stays as it is
        NotebookFixResult nb = fix_notebook(src, f.result, settings, loop_opts);
        settle(FileFixOutcome{path, src.notebook->raw, nb.bytes, nb.applied, nb.error}, nb.warnings,
               nb.applied.size(), [&] {
                 f.source = std::move(nb.source);
                 f.result = std::move(nb.analysis);
               });
        continue;
      }
      FixLoopResult loop = fix_until_stable(src.text, f.result, reanalyze, parse_error_counter(src.language), loop_opts);
      const std::string prefix = bom ? "\xEF\xBB\xBF" : "";
      settle(FileFixOutcome{path, prefix + src.text, prefix + loop.text, loop.applied, loop.error}, loop.warnings,
             loop.applied.size(), [&] {
               auto fixed = std::make_shared<SourceFile>(path, loop.text);
               fixed->has_bom = bom;
               f.source = std::move(fixed);
               f.result = std::move(loop.analysis);
             });
    } catch (...) {
      report.errors.push_back({f.source->path, "fix not applied: " + describe_analysis_failure(std::current_exception()),
                               std::nullopt});
    }
  }
  if (options.write)
    std::erase_if(report.files, [](const FileReport& f) {
      return f.result.diagnostics.empty() && f.result.notices.empty();
    });
  return summary;
}

void write_diffs(std::ostream& out, const FixRunSummary& summary) {
  for (const auto& f : summary.files)
    // Relative to the working directory and normalized (`a/train.py`, never `a/./train.py`),
    // so that `git apply` at the repository root takes it.
    if (f.error.empty()) out << unified_diff(f.before, f.after, output::relative_path(f.path));
}

void write_applied_fixes(std::ostream& out, const FixRunSummary& summary, bool would) {
  size_t total = summary.applied();
  if (total == 0) {
    out << "No fixes " << (would ? "available" : "applied") << ".\n";
    return;
  }
  out << (would ? "Would fix " : "Fixed ") << total << " finding" << (total == 1 ? "" : "s") << ":\n";
  for (const auto& f : summary.files) {
    if (!f.error.empty() || f.applied.empty()) continue;
    out << "- " << f.path << ":\n";
    std::map<std::string, std::pair<size_t, std::string>> per_code;
    for (const auto& a : f.applied) {
      auto& e = per_code[a.code];
      ++e.first;
      if (e.second.empty()) e.second = a.title;
    }
    for (const auto& [code, e] : per_code)
      out << "    " << e.first << " \xC3\x97 " << code << " (" << e.second << ")\n";
  }
}

}  // namespace stoker::fix
