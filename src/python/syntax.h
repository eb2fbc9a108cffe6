// Thin helpers over tree-sitter's C API for the Python grammar.
#pragma once

#include <tree_sitter/api.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/source.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace stoker::python {

using Node = TSNode;

inline bool is_null(Node n) { return ts_node_is_null(n); }
inline std::string_view kind(Node n) { return is_null(n) ? std::string_view{} : ts_node_type(n); }
inline bool is(Node n, std::string_view k) { return !is_null(n) && kind(n) == k; }
inline Node field(Node n, const char* name) {
  return is_null(n) ? n : ts_node_child_by_field_name(n, name, static_cast<uint32_t>(std::strlen(name)));
}
inline Node parent(Node n) { return ts_node_parent(n); }
inline bool same(Node a, Node b) { return ts_node_eq(a, b); }
inline uint32_t start(Node n) { return ts_node_start_byte(n); }
inline uint32_t end(Node n) { return ts_node_end_byte(n); }
inline TextRange range(Node n) { return {start(n), end(n)}; }
inline std::string_view text(Node n, std::string_view src) {
  return is_null(n) ? std::string_view{} : src.substr(start(n), end(n) - start(n));
}
inline uint32_t named_count(Node n) { return is_null(n) ? 0 : ts_node_named_child_count(n); }
inline Node named_child(Node n, uint32_t i) { return ts_node_named_child(n, i); }
inline std::vector<Node> named_children(Node n) {
  std::vector<Node> out;
  uint32_t c = named_count(n);
  out.reserve(c);
  for (uint32_t i = 0; i < c; ++i) out.push_back(named_child(n, i));
  return out;
}
// Strips parentheses around an expression.
inline Node unparen(Node n) {
  while (is(n, "parenthesized_expression") && named_count(n) == 1) n = named_child(n, 0);
  return n;
}
inline bool contains(Node outer, Node inner) {
  return start(outer) <= start(inner) && end(inner) <= end(outer);
}

// The string value of a plain string literal (no interpolation); false otherwise.
bool string_literal_value(Node n, std::string_view src, std::string& out);

}  // namespace stoker::python
