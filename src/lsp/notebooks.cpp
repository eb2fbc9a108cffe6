#include "lsp/notebooks.h"

#include <algorithm>

namespace stoker::lsp {

void NotebookStore::open(const std::string& uri, std::vector<NotebookCellRef> cells) {
  std::lock_guard lock(mutex_);
  notebooks_[uri] = std::move(cells);
}

bool NotebookStore::splice(const std::string& uri, size_t start, size_t delete_count, std::vector<NotebookCellRef> cells) {
  std::lock_guard lock(mutex_);
  auto it = notebooks_.find(uri);
  if (it == notebooks_.end()) return false;
  auto& v = it->second;
  start = std::min(start, v.size());
  delete_count = std::min(delete_count, v.size() - start);
  v.erase(v.begin() + static_cast<std::ptrdiff_t>(start), v.begin() + static_cast<std::ptrdiff_t>(start + delete_count));
  v.insert(v.begin() + static_cast<std::ptrdiff_t>(start), cells.begin(), cells.end());
  return true;
}

std::vector<NotebookCellRef> NotebookStore::close(const std::string& uri) {
  std::lock_guard lock(mutex_);
  auto it = notebooks_.find(uri);
  if (it == notebooks_.end()) return {};
  auto cells = std::move(it->second);
  notebooks_.erase(it);
  return cells;
}

bool NotebookStore::is_open(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  return notebooks_.count(uri) > 0;
}

std::optional<std::vector<NotebookCellRef>> NotebookStore::cells(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  auto it = notebooks_.find(uri);
  if (it == notebooks_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> NotebookStore::notebook_of(const std::string& cell_uri) const {
  std::lock_guard lock(mutex_);
  for (const auto& [uri, cells] : notebooks_)
    for (const auto& c : cells)
      if (c.uri == cell_uri) return uri;
  return std::nullopt;
}

}  // namespace stoker::lsp
