// The one entry point every consumer (CLI, LSP server, tests) calls: text in, diagnostics out.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "core/diagnostic.h"
#include "core/settings.h"
#include "core/source.h"

namespace stoker {

namespace python {
class ExternalFacts;
struct ModuleSummary;
struct ParsedFile;
}  // namespace python

// Project mode (src/python/project.h): what the other modules say, and where this module's
// summary goes. Default: the file alone.
struct AnalysisResult;

struct ProjectHooks {
  const python::ExternalFacts* facts = nullptr;
  python::ModuleSummary* summary = nullptr;
  std::function<bool(std::string_view)> is_project_name;  // calls the summary records
  // Where the front end keeps this file's parse (tree and child index) for the next round of
  // the same run: reused when the text is the same, else parsed and stored. nullptr: not kept.
  std::shared_ptr<const python::ParsedFile>* parsed = nullptr;
  // Where the front end may leave the checks for later (Python project mode): it then builds the
  // model and the summary, stores here what gives the analysis's result once called (the
  // checks, then what analyze() does to findings), and returns a result without findings. The
  // file, the settings and `facts` must outlive the call. nullptr: the checks run now.
  std::function<AnalysisResult()>* deferred = nullptr;
};

struct AnalysisResult {
  std::vector<Diagnostic> diagnostics;  // sorted by position
  std::vector<Notice> notices;          // syntax errors and similar; never findings
  size_t parse_errors = 0;              // C++: the errors clang reported (notices group them per file)
  // The analysis of this file failed or stopped (e.g. its work budget ran out): reported as
  // errors naming the file, so the exit code says so; the file's findings are dropped.
  std::vector<Notice> errors;
  // Python: the work units the semantic model spent (resolution steps; see analysis_budget).
  // Deterministic, so tests and benches compare it across input sizes instead of timing.
  unsigned long long work = 0;
  // The step model of each hot loop with findings (core/impact.h), in source order; built from
  // every finding of the file, selected or not, so "busy now" does not move with --select.
  std::vector<LoopStep> loops;
};

// Analyzes one file whose text is already in memory. Never throws for bad input: problems
// become notices.
AnalysisResult analyze(const SourceFile& file, const Settings& settings);
// The same for a module of a project (Python; other languages ignore the hooks).
AnalysisResult analyze(const SourceFile& file, const Settings& settings, const ProjectHooks& project);

// Cheap byte scan: false when the file cannot have findings (no torch/lightning/DataLoader/cuda).
bool may_have_findings(const SourceFile& file);

void sort_diagnostics(std::vector<Diagnostic>& diags);

}  // namespace stoker
