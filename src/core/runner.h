// Analyzes many files on a thread pool: discovery, reading, prefilter, analysis.
#pragma once

#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/settings.h"
#include "output/report.h"

namespace stoker {

struct RunOptions {
  std::vector<std::string> paths;
  unsigned threads = 0;  // 0: hardware concurrency
  std::function<bool(const std::string&)> exclude;
  // Settings for one file (configuration may differ per directory); default: `base`.
  std::function<Settings(const std::string& path)> settings_for;
  // Analyzes one file (the CLI's cache wraps analyze() here); default: analyze().
  std::function<AnalysisResult(const SourceFile&, const Settings&)> analyze_file;
  // Called after each file (from the worker threads, concurrently): files done, total, path.
  std::function<void(size_t done, size_t total, const std::string& path)> on_file_done;
  // Project mode (docs/cli.md#project-mode): the Python files (.py) analyzed together with the
  // modules next to them, facts flowing through imports; only the files asked for are reported.
  // False: each file alone.
  bool project = true;
  size_t project_context_limit = 512;  // context modules read besides the files asked for
  // The CLI's result cache for project modules: a result and the module's state (summary and
  // the facts it read); load answers nullopt on a miss.
  std::function<std::optional<AnalysisResult>(const SourceFile&, const Settings&, std::string& state)> load_module;
  std::function<void(const SourceFile&, const Settings&, const AnalysisResult&, const std::string& state)> store_module;
};

// Every file is isolated: an exception of any kind while reading or analyzing one file becomes
// an entry of `Report::errors` naming it (the CLI exits 2), and every other file is reported.
Report run_analysis(const RunOptions& opts, const Settings& base);

// The message for a file whose analysis threw `failure` (any type), shared with the server.
std::string describe_analysis_failure(std::exception_ptr failure);

}  // namespace stoker
