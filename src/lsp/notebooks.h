// LSP 3.17 notebook documents: which cells (text documents, kept in the DocumentStore) make up
// each open notebook, in order. The server analyzes a notebook as one program (core/notebook.h)
// and publishes each cell's diagnostics on the cell's own URI.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace stoker::lsp {

struct NotebookCellRef {
  std::string uri;  // the cell's text document
  int kind = 2;     // NotebookCellKind: 1 markup, 2 code
};

class NotebookStore {
 public:
  void open(const std::string& uri, std::vector<NotebookCellRef> cells);
  // Replaces `delete_count` cells at `start` with `cells` (a structure change). False if not open.
  bool splice(const std::string& uri, size_t start, size_t delete_count, std::vector<NotebookCellRef> cells);
  // The cells it had; empty when it was not open.
  std::vector<NotebookCellRef> close(const std::string& uri);
  bool is_open(const std::string& uri) const;
  std::optional<std::vector<NotebookCellRef>> cells(const std::string& uri) const;
  // The notebook a cell belongs to.
  std::optional<std::string> notebook_of(const std::string& cell_uri) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::vector<NotebookCellRef>> notebooks_;
};

}  // namespace stoker::lsp
