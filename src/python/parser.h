// Parsing Python with tree-sitter: an owned tree plus the syntax errors it contains.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/diagnostic.h"
#include "python/syntax.h"

namespace stoker::python {

class ParsedModule {
 public:
  explicit ParsedModule(std::string_view text);
  ~ParsedModule();
  ParsedModule(const ParsedModule&) = delete;
  ParsedModule& operator=(const ParsedModule&) = delete;
  Node root() const { return ts_tree_root_node(tree_); }
  bool has_errors() const { return ts_node_has_error(root()); }
  // Ranges of ERROR and MISSING nodes, outermost only.
  std::vector<TextRange> error_ranges() const;

 private:
  TSTree* tree_ = nullptr;
};

// What SemanticModel::unused_imports answered for a parse, with the imports it was asked about:
// it reads only the text, the tree and those imports, so every analysis of a kept parse that asks
// about the same imports gets the same answer.
struct UnusedImportsMemo {
  std::mutex lock;
  bool set = false;
  std::vector<std::pair<std::string, std::string>> imports;
  std::vector<std::string> unused;
};

// A parse kept with its text and child index (project mode reuses it across rounds).
struct ParsedFile {
  explicit ParsedFile(std::string_view source) : text(source), module(text), children(module.root()) {}
  std::string text;
  ParsedModule module;
  ChildIndex children;
  mutable UnusedImportsMemo unused_imports;
};

// Number of syntax errors in `text` (used to verify that fixes do not break parsing).
size_t count_syntax_errors(std::string_view text);

}  // namespace stoker::python
