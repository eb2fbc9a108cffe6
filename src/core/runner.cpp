#include "core/runner.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "core/discover.h"
#include "core/test_hooks.h"
#include "core/notebook.h"
#include "python/project.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

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

namespace {

constexpr uintmax_t kMaxContextBytes = uintmax_t{1} << 20;  // larger context modules are not read

template <class Pending>
void run_project(const RunOptions& opts, const Settings& base, const std::vector<std::string>& files,
                 std::vector<std::optional<Pending>>& pending, std::vector<FileReport>& slots,
                 std::vector<std::optional<Notice>>& read_errors, unsigned threads) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  std::vector<std::shared_ptr<SourceFile>> sources;
  std::vector<Settings> settings;
  std::vector<int> slot;  // index into files, or -1 for a context module
  std::set<std::string> seen;
  auto key = [](const std::string& p) {
    std::error_code ec;
    return fs::weakly_canonical(fs::absolute(p, ec), ec).string();
  };
  for (size_t i = 0; i < pending.size(); ++i) {
    if (!pending[i]) continue;
    paths.push_back(files[i]);
    sources.push_back(pending[i]->source);
    settings.push_back(std::move(pending[i]->settings));
    slot.push_back(static_cast<int>(i));
    seen.insert(key(files[i]));
  }
  if (paths.empty()) return;
  // Context: the modules next to each file asked for (siblings, its top package), read but
  // never reported; unreadable ones are left out silently.
  size_t context = 0;
  const size_t asked = paths.size();
  auto reader = [&](const std::string& c) -> std::optional<std::string> {
    if (seen.count(key(c)) || (opts.exclude && opts.exclude(c))) return std::nullopt;
    std::error_code ec;
    if (fs::file_size(c, ec) > kMaxContextBytes || ec) return std::nullopt;
    std::string text, error;
    if (!read_source_file(c, text, error)) return std::nullopt;
    return text;
  };
  // Only for files named on the command line: a directory's files are all in the project already.
  std::set<std::string> named;
  for (const auto& p : opts.paths) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) named.insert(key(p));
  }
  for (size_t a = 0; a < asked && context < opts.project_context_limit; ++a) {
    if (!named.count(key(paths[a]))) continue;
    for (auto& [c, text] :
         python::ProjectLayout::context_files(paths[a], sources[a]->text, opts.project_context_limit, reader)) {
      if (context >= opts.project_context_limit) break;
      if (!seen.insert(key(c)).second) continue;
      std::string error;
      auto source = make_source_file(c, std::move(text), error);
      if (!source || source->language != Language::Python) continue;
      paths.push_back(c);
      sources.push_back(std::move(source));
      settings.push_back(opts.settings_for ? opts.settings_for(c) : base);
      slot.push_back(-1);
      ++context;
    }
  }
  std::vector<std::string_view> texts;
  for (const auto& s : sources) texts.push_back(s->text);
  auto setup = python::setup_project(paths, texts, [&](size_t i) { return may_have_findings(*sources[i]); });
  const python::ProjectLayout& layout = setup.layout;
  const std::vector<char>& eligible = setup.eligible;
  python::ProjectCache cache;
  if (opts.load_module)
    cache.load = [&](size_t i, std::string& state) { return opts.load_module(*sources[i], settings[i], state); };
  if (opts.store_module)
    cache.store = [&](size_t i, const AnalysisResult& r, const std::string& state) {
      opts.store_module(*sources[i], settings[i], r, state);
    };
  auto run = python::analyze_project(
      layout, eligible,
      [&](size_t i, const ProjectHooks& hooks) { return analyze(*sources[i], settings[i], hooks); }, threads, cache);
  for (size_t i = 0; i < paths.size(); ++i) {
    if (slot[i] < 0) continue;
    size_t s = static_cast<size_t>(slot[i]);
    if (run.failures[i]) {
      read_errors[s] = Notice{paths[i], describe_analysis_failure(run.failures[i]), std::nullopt};
      continue;
    }
    if (!run.results[i]) continue;  // not analyzed: nothing for stoker in it
    AnalysisResult result = std::move(*run.results[i]);
    if (!result.errors.empty()) {
      read_errors[s] = result.errors.front();
      result.errors.clear();
    }
    if (result.diagnostics.empty() && result.notices.empty()) continue;
    slots[s] = FileReport{sources[i], std::move(result)};
  }
}

}  // namespace

Report run_analysis(const RunOptions& opts, const Settings& base) {
  Report report;
  DiscoveryResult found = discover_files(opts.paths, opts.exclude);
  report.errors = std::move(found.errors);
  report.warnings = std::move(found.warnings);
  test_hooks::sync_after_discovery();
  const size_t n = found.files.size();
  std::vector<FileReport> slots(n);
  std::vector<std::optional<Notice>> read_errors(n);
  // Project mode: the Python modules wait for the project (read here, analyzed below).
  struct Pending {
    std::shared_ptr<SourceFile> source;
    Settings settings;
  };
  std::vector<std::optional<Pending>> pending(n);
  auto project_member = [&](const std::string& path, const SourceFile& source) {
    return opts.project && source.language == Language::Python && !source.notebook &&
           std::filesystem::path(path).extension() == ".py";
  };
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
        if (project_member(path, *source)) {
          pending[i] = Pending{std::move(source), opts.settings_for ? opts.settings_for(path) : base};
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
  if (opts.project) run_project(opts, base, found.files, pending, slots, read_errors, threads);
  for (size_t i = 0; i < n; ++i) {
    if (read_errors[i]) report.errors.push_back(*read_errors[i]);
    if (slots[i].source) report.files.push_back(std::move(slots[i]));
  }
  report.files_analyzed = n;
  report.analyzed_files = found.files;
  return report;
}

}  // namespace stoker
