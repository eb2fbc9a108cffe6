#pragma once
// A class of each symbol (node type) of the Python grammar, computed once from the type names:
// a walk that asks what kind of node it stands on reads one table entry instead of comparing
// up to a dozen type names, and answers as comparing kind() would.

#include <cstdint>
#include <string_view>
#include <vector>

#include "python/syntax.h"

namespace stoker::python {

template <class T>
class SymbolTable {
 public:
  // `classify(type name)` for every symbol of the grammar; `other` for a null node and for
  // symbols past the table (ERROR and the like).
  template <class Classify>
  SymbolTable(Classify classify, T other) : other_(other) {
    uint32_t count = ts_language_symbol_count(tree_sitter_python());
    const std::string_view* names = symbol_names();
    table_.reserve(count);
    for (uint32_t s = 0; s < count; ++s) table_.push_back(classify(names[s]));
  }
  T operator()(Node n) const {
    if (is_null(n)) return other_;
    TSSymbol s = ts_node_symbol(n);
    return s < table_.size() ? table_[s] : other_;
  }
  const T* data() const { return table_.data(); }

 private:
  std::vector<T> table_;
  T other_;
};

}  // namespace stoker::python
