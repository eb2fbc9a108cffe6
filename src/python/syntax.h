// Thin helpers over tree-sitter's C API for the Python grammar.
#pragma once

#include <tree_sitter/api.h>

#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
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
class ChildIndex;
Node parent(Node n);
inline bool same(Node a, Node b) { return ts_node_eq(a, b); }
inline uint32_t start(Node n) { return ts_node_start_byte(n); }
inline uint32_t end(Node n) { return ts_node_end_byte(n); }
inline TextRange range(Node n) { return {start(n), end(n)}; }
inline std::string_view text(Node n, std::string_view src) {
  return is_null(n) ? std::string_view{} : src.substr(start(n), end(n) - start(n));
}
// Children by cursor: tree-sitter's indexed child access walks from the first child, so
// indexing in a loop is quadratic on a module with many statements.
// Every node's children and parent, recorded in one traversal of a tree. While an index is
// installed on the thread (ScopedChildIndex), for_each_child() and parent() read it instead of
// moving tree-sitter cursors (a cursor step costs hundreds of instructions in tree-sitter 0.20,
// ts_node_parent walks down from the root).
class ChildIndex {
 public:
  explicit ChildIndex(Node root);
  struct Entry {
    uint32_t first = 0, count = 0;  // children: nodes_[first, first + count)
    Node parent{};
  };
  const Entry* find(Node n) const {
    if (n.tree != tree_ || slots_.empty()) return nullptr;
    for (size_t i = slot_of(n.id);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.id == n.id) return &entries_[s.entry];
      if (!s.id) return nullptr;
    }
  }
  const Node* children(const Entry& e) const { return nodes_.data() + e.first; }
  bool is_named_code(const Entry& e, uint32_t i) const { return code_[e.first + i] != 0; }
  // The first child that carries field `id` (as ts_node_child_by_field_id answers).
  Node field(const Entry& e, TSFieldId id) const {
    for (uint32_t i = e.first; i < e.first + e.count; ++i)
      if (fields_[i] == id) return nodes_[i];
    return Node{};
  }

 private:
  // Open addressing on node ids (flat: no allocation per node).
  struct Slot {
    const void* id = nullptr;
    uint32_t entry = 0;
  };
  size_t slot_of(const void* id) const {
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(id) >> 3) * 0x9E3779B97F4A7C15ull >> 20) & mask_;
  }
  Entry& insert(const void* id);
  const TSTree* tree_ = nullptr;
  std::vector<Node> nodes_;
  std::vector<TSFieldId> fields_;  // per nodes_ entry: the field the child is in, 0 if none
  std::vector<char> code_;         // per nodes_ entry: named and not an extra
  std::vector<Entry> entries_;
  std::vector<Slot> slots_;
  size_t mask_ = 0;
};
inline const ChildIndex*& current_child_index() {
  thread_local const ChildIndex* index = nullptr;
  return index;
}
// Installs an index on this thread for the scope's duration.
class ScopedChildIndex {
 public:
  explicit ScopedChildIndex(const ChildIndex* index) : previous_(current_child_index()) {
    current_child_index() = index;
  }
  ~ScopedChildIndex() { current_child_index() = previous_; }
  ScopedChildIndex(const ScopedChildIndex&) = delete;
  ScopedChildIndex& operator=(const ScopedChildIndex&) = delete;

 private:
  const ChildIndex* previous_;
};

inline Node field(Node n, const char* name) {
  if (is_null(n)) return n;
  TSFieldId id = field_id(name);
  if (const ChildIndex* index = current_child_index())
    if (const ChildIndex::Entry* e = index->find(n)) return index->field(*e, id);
  return ts_node_child_by_field_id(n, id);
}

inline Node parent(Node n) {
  if (const ChildIndex* index = current_child_index())
    if (const ChildIndex::Entry* e = index->find(n)) return e->parent;
  return ts_node_parent(n);
}

// One cursor per thread, reset onto each node (creating a cursor allocates its stack).
// `f(child)` returns false to stop; it must not iterate children itself.
template <class F>
inline void for_each_child(Node n, F&& f) {
  if (is_null(n)) return;
  if (const ChildIndex* index = current_child_index()) {
    if (const ChildIndex::Entry* e = index->find(n)) {
      const Node* kids = index->children(*e);
      for (uint32_t i = 0; i < e->count; ++i)
        if (!f(kids[i])) break;
      return;
    }
  }
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
// Calls f(child) for the named children without extras (comments, line continuations), which
// may appear anywhere; f returns false to stop.
template <class F>
inline void for_each_named_child(Node n, F&& f) {
  if (is_null(n)) return;
  if (const ChildIndex* index = current_child_index()) {
    if (const ChildIndex::Entry* e = index->find(n)) {
      const Node* kids = index->children(*e);
      for (uint32_t i = 0; i < e->count; ++i)
        if (index->is_named_code(*e, i) && !f(kids[i])) break;
      return;
    }
  }
  for_each_child(n, [&](Node c) { return !is_named_code(c) || f(c); });
}
inline std::vector<Node> named_children(Node n) {
  std::vector<Node> out;
  for_each_named_child(n, [&](Node c) {
    out.push_back(c);
    return true;
  });
  return out;
}
inline uint32_t named_count(Node n) {
  uint32_t count = 0;
  for_each_named_child(n, [&](Node) {
    ++count;
    return true;
  });
  return count;
}
inline Node named_child(Node n, uint32_t i) {
  Node out{};
  for_each_named_child(n, [&](Node c) {
    if (i-- == 0) {
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
// The literal text of a string up to its first interpolation (`f"xpu:{rank}"` gives `xpu:`);
// `complete` tells whether that is the whole value. False when `n` is not a string literal.
bool string_literal_prefix(Node n, std::string_view src, std::string& out, bool& complete);

}  // namespace stoker::python
