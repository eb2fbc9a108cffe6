#include "core/analyzer.h"

#include <algorithm>

#include "core/impact.h"
#include "core/suppression.h"
#include "cxx/checker.h"
#include "python/checker.h"

namespace stoker {

bool may_have_findings(const SourceFile& file) {
  // Frameworks that run PyTorch for the program (data/frameworks.txt) count: a Trainer script
  // need not import torch.
  static constexpr std::string_view python_needles[] = {"torch", "lightning", "DataLoader", "cuda", "transformers",
                                                        "accelerate"};
  // C++: CUDA API, LibTorch, ATen/c10 (extensions), a kernel launch; a .cu/.cuh file always
  // (its CUDA calls may all come from a project header's macros).
  static constexpr std::string_view cxx_needles[] = {"cuda", "torch", "CUDA", "ATen", "at::", "c10", "<<<"};
  std::string_view text = file.text;
  if (file.language == Language::Python) {
    for (auto n : python_needles)
      if (text.find(n) != std::string_view::npos) return true;
    return false;
  }
  if (file.language == Language::Cxx) {
    std::string_view path = file.path;
    if (path.ends_with(".cu") || path.ends_with(".cuh")) return true;
    for (auto n : cxx_needles)
      if (text.find(n) != std::string_view::npos) return true;
    return false;
  }
  return false;
}

void sort_diagnostics(std::vector<Diagnostic>& diags) {
  std::stable_sort(diags.begin(), diags.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.file != b.file) return a.file < b.file;
    if (a.range.start != b.range.start) return a.range.start < b.range.start;
    return a.code < b.code;
  });
}

AnalysisResult analyze(const SourceFile& file, const Settings& settings) { return analyze(file, settings, ProjectHooks{}); }

namespace {
// What analyze() does to a front end's findings.
void finish_result(const SourceFile& file, const Settings& settings, AnalysisResult& result) {
  // The step models see every finding (busy now does not move with --select or a noqa); the
  // fixes of the reported ones make "after".
  std::vector<Diagnostic> all = result.diagnostics;
  std::erase_if(result.diagnostics, [&](const Diagnostic& d) { return !settings.rules.enabled(d.code); });
  apply_suppressions(file, settings, result);
  sort_diagnostics(result.diagnostics);
  attach_impact(result, settings, all);
}
}  // namespace

AnalysisResult analyze(const SourceFile& file, const Settings& settings, const ProjectHooks& project) {
  AnalysisResult result;
  if (file.language == Language::Python) {
    result = python::check(file, settings, project);
    if (project.deferred && *project.deferred) {
      // The checks were left for later: the rest of this function runs when they do.
      *project.deferred = [checks = std::move(*project.deferred), &file, &settings]() {
        AnalysisResult r = checks();
        finish_result(file, settings, r);
        return r;
      };
      return result;
    }
  } else if (file.language == Language::Cxx) {
    result = cxx::check(file, settings);
  }
  finish_result(file, settings, result);
  return result;
}

}  // namespace stoker
