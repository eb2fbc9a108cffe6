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
// Field ids by name, looked up once (tree-sitter's own lookup compares every field name).
TSFieldId field_id(const char* name);
inline Node field(Node n, const char* name) {
  return is_null(n) ? n : ts_node_child_by_field_id(n, field_id(name));
}
inline Node parent(Node n) { return ts_node_parent(n); }
inline bool same(Node a, Node b) { return ts_node_eq(a, b); }
inline uint32_t start(Node n) { return ts_node_start_byte(n); }
inline uint32_t end(Node n) { return ts_node_end_byte(n); }
inline TextRange range(Node n) { return {start(n), end(n)}; }
inline std::string_view text(Node n, std::string_view src) {
  return is_null(n) ? std::string_view{} : src.substr(start(n), end(n) - start(n));
}
// Children by cursor: tree-sitter's indexed child access walks from the first child, so
// indexing in a loop is quadratic on a module with many statements.
inline std::vector<Node> all_children(Node n) {
  std::vector<Node> out;
  if (is_null(n)) return out;
  TSTreeCursor cursor = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do out.push_back(ts_tree_cursor_current_node(&cursor));
    while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}
// Named children without extras (comments, line continuations), which may appear anywhere.
inline std::vector<Node> named_children(Node n) {
  std::vector<Node> out;
  for (Node c : all_children(n))
    if (ts_node_is_named(c) && !ts_node_is_extra(c)) out.push_back(c);
  return out;
}
inline uint32_t named_count(Node n) {
  if (is_null(n)) return 0;
  uint32_t count = 0;
  for (Node c : all_children(n)) count += ts_node_is_named(c) && !ts_node_is_extra(c);
  return count;
}
inline Node named_child(Node n, uint32_t i) {
  for (Node c : all_children(n))
    if (ts_node_is_named(c) && !ts_node_is_extra(c) && i-- == 0) return c;
  return Node{};
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
