// Analyzes many files on a thread pool: discovery, reading, prefilter, analysis.
#pragma once

#include <exception>
#include <functional>
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
};

// Every file is isolated: an exception of any kind while reading or analyzing one file becomes
// an entry of `Report::errors` naming it (the CLI exits 2), and every other file is reported.
Report run_analysis(const RunOptions& opts, const Settings& base);

// The message for a file whose analysis threw `failure` (any type), shared with the server.
std::string describe_analysis_failure(std::exception_ptr failure);

}  // namespace stoker
