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
// Node type names by symbol, with their lengths, built once (ts_node_type returns a C string
// that every comparison would measure again).
const std::string_view* symbol_names();
inline std::string_view kind(Node n) {
  if (is_null(n)) return {};
  TSSymbol s = ts_node_symbol(n);
  static const std::string_view* names = symbol_names();
  static const uint32_t count = ts_language_symbol_count(tree_sitter_python());
  return s < count ? names[s] : std::string_view(ts_node_type(n));
}
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
// One cursor per thread, reset onto each node (creating a cursor allocates its stack).
// `f(child)` returns false to stop; it must not iterate children itself.
template <class F>
inline void for_each_child(Node n, F&& f) {
  if (is_null(n)) return;
  struct Holder {
    TSTreeCursor cursor{};
    bool live = false;
    ~Holder() {
      if (live) ts_tree_cursor_delete(&cursor);
    }
  };
  thread_local Holder h;
  if (!h.live) {
    h.cursor = ts_tree_cursor_new(n);
    h.live = true;
  } else {
    ts_tree_cursor_reset(&h.cursor, n);
  }
  if (ts_tree_cursor_goto_first_child(&h.cursor)) {
    do {
      if (!f(ts_tree_cursor_current_node(&h.cursor))) break;
    } while (ts_tree_cursor_goto_next_sibling(&h.cursor));
  }
}
inline void all_children(Node n, std::vector<Node>& out) {
  out.clear();
  for_each_child(n, [&](Node c) {
    out.push_back(c);
    return true;
  });
}
inline std::vector<Node> all_children(Node n) {
  std::vector<Node> out;
  all_children(n, out);
  return out;
}
inline bool is_named_code(Node c) { return ts_node_is_named(c) && !ts_node_is_extra(c); }
// Named children without extras (comments, line continuations), which may appear anywhere.
inline std::vector<Node> named_children(Node n) {
  std::vector<Node> out;
  for_each_child(n, [&](Node c) {
    if (is_named_code(c)) out.push_back(c);
    return true;
  });
  return out;
}
inline uint32_t named_count(Node n) {
  uint32_t count = 0;
  for_each_child(n, [&](Node c) {
    count += is_named_code(c);
    return true;
  });
  return count;
}
inline Node named_child(Node n, uint32_t i) {
  Node out{};
  for_each_child(n, [&](Node c) {
    if (is_named_code(c) && i-- == 0) {
      out = c;
      return false;
    }
    return true;
  });
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
