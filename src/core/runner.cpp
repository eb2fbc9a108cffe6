#include "core/runner.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "core/discover.h"
#include "core/notebook.h"

namespace stoker {

Report run_analysis(const RunOptions& opts, const Settings& base) {
  Report report;
  DiscoveryResult found = discover_files(opts.paths, opts.exclude);
  report.errors = std::move(found.errors);
  report.warnings = std::move(found.warnings);
  const size_t n = found.files.size();
  std::vector<FileReport> slots(n);
  std::vector<std::optional<Notice>> read_errors(n);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      const std::string& path = found.files[i];
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
      AnalysisResult result = analyze(*source, settings);
      if (result.diagnostics.empty() && result.notices.empty()) continue;
      slots[i] = FileReport{std::move(source), std::move(result)};
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
