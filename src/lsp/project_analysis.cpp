#include "lsp/project_analysis.h"

#include "core/discover.h"
#include "core/runner.h"
#include "python/project.h"

namespace fs = std::filesystem;

namespace stoker::lsp {

std::optional<std::string> ProjectMemo::disk_text(const std::string& path) {
  std::error_code ec;
  auto mtime = fs::last_write_time(path, ec);
  if (ec) return std::nullopt;
  auto size = fs::file_size(path, ec);
  if (ec || size > (uintmax_t{1} << 20)) return std::nullopt;  // larger context modules are not read
  auto it = disk_.find(path);
  if (it != disk_.end() && it->second.mtime == mtime && it->second.size == size) return it->second.text;
  std::string text, error;
  if (!read_source_file(path, text, error)) return std::nullopt;
  disk_[path] = DiskText{mtime, size, text};
  return text;
}

void ProjectMemo::clear() {
  std::lock_guard lock(mutex_);
  entries_.clear();
  disk_.clear();
}

std::shared_ptr<Analysis> ProjectMemo::analyze(const Snapshot& snap, const Settings& settings,
                                               const std::unordered_map<std::string, std::string>& open_text,
                                               std::vector<std::string>* reanalyzed) {
  std::lock_guard lock(mutex_);
  auto a = std::make_shared<Analysis>();
  a->generation = snap.generation;
  auto doc = std::make_shared<SourceFile>(snap.path, snap.text);
  a->source = doc;
  try {
    std::vector<std::string> paths{snap.path};
    std::vector<std::shared_ptr<SourceFile>> sources{doc};
    std::error_code ec;
    auto self = fs::weakly_canonical(fs::absolute(snap.path, ec), ec);
    auto reader = [&](const std::string& c) -> std::optional<std::string> {
      if (fs::weakly_canonical(fs::absolute(c, ec), ec) == self) return std::nullopt;
      if (auto open = open_text.find(c); open != open_text.end()) return open->second;
      return disk_text(c);
    };
    for (auto& [c, text] : python::ProjectLayout::context_files(snap.path, snap.text, kLspProjectContextLimit, reader)) {
      auto source = std::make_shared<SourceFile>(c, std::move(text));
      if (source->language != Language::Python) continue;
      paths.push_back(c);
      sources.push_back(std::move(source));
    }
    std::vector<std::string_view> texts;
    for (const auto& s : sources) texts.push_back(s->text);
    auto setup = python::setup_project(paths, texts, [&](size_t i) { return may_have_findings(*sources[i]); });
    const python::ProjectLayout& layout = setup.layout;
    std::vector<char>& eligible = setup.eligible;
    eligible[0] = 1;
    std::hash<std::string> hash;
    python::ProjectCache cache;
    cache.load = [&](size_t i, std::string& state) -> std::optional<AnalysisResult> {
      auto it = entries_.find(paths[i]);
      if (it == entries_.end() || it->second.hash != hash(sources[i]->text)) return std::nullopt;
      state = it->second.state;
      return it->second.result;
    };
    std::vector<char> stored(paths.size(), 0);
    cache.store = [&](size_t i, const AnalysisResult& r, const std::string& state) {
      entries_[paths[i]] = Entry{hash(sources[i]->text), r, state};
      stored[i] = 1;
    };
    auto run = python::analyze_project(
        layout, eligible,
        [&](size_t i, const ProjectHooks& hooks) {
          ++analyses_;
          return stoker::analyze(*sources[i], settings, hooks);
        },
        1, cache);
    if (run.failures[0]) std::rethrow_exception(run.failures[0]);
    if (run.results[0]) a->result = std::move(*run.results[0]);
    if (reanalyzed)
      for (size_t i = 1; i < paths.size(); ++i)
        if (stored[i]) reanalyzed->push_back(paths[i]);
  } catch (...) {
    a->result = AnalysisResult{};
    a->failure = describe_analysis_failure(std::current_exception());
  }
  return a;
}

}  // namespace stoker::lsp
