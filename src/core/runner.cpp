#include "core/runner.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "core/discover.h"
#include "core/test_hooks.h"
#include "core/notebook.h"

namespace stoker {

std::string describe_analysis_failure(std::exception_ptr failure) {
  std::string what;
  try {
    std::rethrow_exception(failure);
  } catch (const std::bad_alloc&) {
    what = "out of memory";
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "unknown exception";
  }
  return "internal error while analyzing this file (" + what + "); its results are missing";
}

Report run_analysis(const RunOptions& opts, const Settings& base) {
  Report report;
  DiscoveryResult found = discover_files(opts.paths, opts.exclude);
  report.errors = std::move(found.errors);
  report.warnings = std::move(found.warnings);
  test_hooks::sync_after_discovery();
  const size_t n = found.files.size();
  std::vector<FileReport> slots(n);
  std::vector<std::optional<Notice>> read_errors(n);
  std::atomic<size_t> next{0}, done{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      const std::string& path = found.files[i];
      struct Done {  // reports the file as done however the body below leaves it
        const RunOptions& o;
        std::atomic<size_t>& d;
        size_t total;
        const std::string& p;
        ~Done() {
          size_t k = d.fetch_add(1) + 1;
          if (o.on_file_done) o.on_file_done(k, total, p);
        }
      } report_done{opts, done, n, path};
      // Isolation: whatever goes wrong with this file is its error; the others go on.
      try {
        std::string text, error;
        if (!read_source_file(path, text, error)) {
          read_errors[i] = Notice{path, error, std::nullopt};
          continue;
        }
        std::shared_ptr<SourceFile> source = make_source_file(path, std::move(text), error);  // notebooks too
        if (!source) {
          read_errors[i] = Notice{path, error, std::nullopt};
          continue;
        }
        if (!may_have_findings(*source)) continue;
        Settings settings = opts.settings_for ? opts.settings_for(path) : base;
        AnalysisResult result =
            opts.analyze_file ? opts.analyze_file(*source, settings) : analyze(*source, settings);
        if (!result.errors.empty()) {
          read_errors[i] = result.errors.front();
          result.errors.clear();
        }
        if (result.diagnostics.empty() && result.notices.empty()) continue;
        slots[i] = FileReport{std::move(source), std::move(result)};
      } catch (...) {
        slots[i] = FileReport{};
        read_errors[i] = Notice{path, describe_analysis_failure(std::current_exception()), std::nullopt};
      }
    }
  };
  unsigned threads = opts.threads ? opts.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(n, 1)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (size_t i = 0; i < n; ++i) {
    if (read_errors[i]) report.errors.push_back(*read_errors[i]);
    if (slots[i].source) report.files.push_back(std::move(slots[i]));
  }
  report.files_analyzed = n;
  report.analyzed_files = found.files;
  return report;
}

}  // namespace stoker
