#include "lsp/documents.h"

#include "lsp/uri.h"

namespace stoker::lsp {

void DocumentStore::open(const std::string& uri, const std::string& language_id, int64_t version, std::string text) {
  std::lock_guard lock(mutex_);
  Document& d = docs_[uri];
  d.snap = Snapshot{uri, path_from_uri(uri), language_id, std::move(text), version, next_generation_++};
  d.analysis.reset();
}

bool DocumentStore::change(const std::string& uri, int64_t version, const std::vector<TextChange>& changes) {
  std::lock_guard lock(mutex_);
  auto it = docs_.find(uri);
  if (it == docs_.end()) return false;
  std::string& text = it->second.snap.text;
  for (const auto& c : changes) {
    if (!c.start || !c.end) {
      text = c.text;
      continue;
    }
    LineIndex index(text);
    uint32_t a = index.offset_from_lsp(text, c.start->first, c.start->second);
    uint32_t b = index.offset_from_lsp(text, c.end->first, c.end->second);
    if (b < a) std::swap(a, b);
    text.replace(a, b - a, c.text);
  }
  it->second.snap.version = version;
  it->second.snap.generation = next_generation_++;
  return true;
}

bool DocumentStore::close(const std::string& uri) {
  std::lock_guard lock(mutex_);
  return docs_.erase(uri) > 0;
}

bool DocumentStore::is_open(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  return docs_.count(uri) > 0;
}

std::optional<Snapshot> DocumentStore::snapshot(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  auto it = docs_.find(uri);
  if (it == docs_.end()) return std::nullopt;
  return it->second.snap;
}

std::vector<std::string> DocumentStore::uris() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [uri, d] : docs_) out.push_back(uri);
  return out;
}

void DocumentStore::invalidate_all() {
  std::lock_guard lock(mutex_);
  for (auto& [uri, d] : docs_) d.snap.generation = next_generation_++;
}

bool DocumentStore::commit(const std::string& uri, std::shared_ptr<const Analysis> analysis,
                           const std::function<void(const Snapshot&, const Analysis&)>& publish) {
  std::lock_guard lock(mutex_);
  auto it = docs_.find(uri);
  if (it == docs_.end() || it->second.snap.generation != analysis->generation) return false;
  it->second.analysis = analysis;
  publish(it->second.snap, *analysis);
  return true;
}

std::shared_ptr<const Analysis> DocumentStore::current_analysis(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  auto it = docs_.find(uri);
  if (it == docs_.end() || !it->second.analysis) return nullptr;
  if (it->second.analysis->generation != it->second.snap.generation) return nullptr;
  return it->second.analysis;
}

}  // namespace stoker::lsp
