// Thin helpers over tree-sitter's C API for the Python grammar.
#pragma once

#include <tree_sitter/api.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "core/source.h"
#include "python/node_kinds.h"

extern "C" const TSLanguage* tree_sitter_python(void);
// ts_node_symbol and ts_node_end_byte read the tree and write nothing: declared pure (GCC merges
// the attribute into api.h's declarations), so that GCC may read a node's symbol once where no
// call that may write sits between two reads. (On detr it removes no call yet: is()'s slow path,
// is_slow, is not declared pure and joins every chain `is(n, "a") || is(n, "b")`.)
extern "C" TSSymbol ts_node_symbol(TSNode) __attribute__((pure));
extern "C" uint32_t ts_node_end_byte(TSNode) __attribute__((pure));

namespace stoker::python {

using Node = TSNode;

// The node's identity and start offset are fields of TSNode itself (api.h: `id`, and
// `context[0]`, the start byte, as every tree-sitter release since 0.16 lays it out): read here
// without a call into the shared library.
inline bool is_null(Node n) { return n.id == nullptr; }
// Node type names by symbol, with their lengths, built once (ts_node_type returns a C string
// that every comparison would measure again).
const std::string_view* symbol_names();
namespace syntax_detail {
// The tables kind() and is() read, set while the program starts (parser.cpp) so that reading
// them is a plain load (a function-local static's guard may write, and would keep GCC from
// reading a node's symbol once for `is(n, "a") || is(n, "b")`). Before they are set the count is
// 0 and both take the slow path, which asks tree-sitter for the name.
struct SymbolTables {
  const std::string_view* names = nullptr;  // symbol_names()
  const uint16_t* slots = nullptr;          // kind_slots(): per symbol, its name's index in kKindNames
  uint32_t count = 0;                       // ts_language_symbol_count, once set
};
extern SymbolTables symbol_tables;
std::string_view kind_slow(Node n);
bool is_slow(Node n, uint16_t slot);
}  // namespace syntax_detail
inline std::string_view kind(Node n) {
  if (is_null(n)) return {};
  TSSymbol s = ts_node_symbol(n);
  if (s < syntax_detail::symbol_tables.count) return syntax_detail::symbol_tables.names[s];
  return syntax_detail::kind_slow(n);
}
// A node type name of the Python grammar given as a string literal: checked and turned into its
// index in kKindNames (node_kinds.h) at compile time (a name the grammar lacks does not compile).
namespace syntax_detail {
consteval uint16_t kind_slot(std::string_view name) {
  for (size_t i = 0; i < kKindCount; ++i)
    if (kKindNames[i] == name) return static_cast<uint16_t>(i);
  throw "not a node type of the tree-sitter-python grammar";  // a compile error in a consteval call
}
// Per symbol of the grammar (ts_language_symbol_count of them), the index in kKindNames of its
// name (kKindCount when it is not listed), built once.
struct KindSlots {
  const uint16_t* slots;
  uint32_t count;
};
const KindSlots& kind_slots();
}  // namespace syntax_detail
struct KindName {
  template <size_t N>
  consteval KindName(const char (&name)[N]) : slot(syntax_detail::kind_slot(std::string_view(name, N - 1))) {}
  uint16_t slot;
  std::string_view name() const { return syntax_detail::kKindNames[slot]; }
};
// `is(n, "call")`: the node's symbol compared with the literal's by one table read, no name
// compared (what `kind(n) == "call"` answers: symbols that share a name, aliases included, map to
// one index). A symbol past the grammar's count (the error node's) compares its name.
inline __attribute__((always_inline)) bool is(Node n, KindName k) {
  if (is_null(n)) return false;
  TSSymbol s = ts_node_symbol(n);
  if (s < syntax_detail::symbol_tables.count) return syntax_detail::symbol_tables.slots[s] == k.slot;
  return syntax_detail::is_slow(n, k.slot);
}
// A name not known at compile time (a variable) is compared as text.
template <class S>
  requires(!std::is_array_v<S> && std::is_convertible_v<const S&, std::string_view>)
inline bool is(Node n, const S& k) {
  return !is_null(n) && kind(n) == std::string_view(k);
}
// Field ids by name, looked up once (tree-sitter's own lookup compares every field name).
TSFieldId field_id(const char* name);
// A field of the Python grammar named by a string literal: the name is checked and turned into
// a slot at compile time (an unknown field name does not compile), the slot into the grammar's
// field id by one table read. `field(n, "body")` costs no lookup by name at run time.
namespace syntax_detail {
inline constexpr std::string_view kFieldNames[] = {
    "alias",     "alternative", "argument",  "arguments",        "attribute",    "body",        "cause",
    "code",      "condition",   "consequence", "definition",     "expression",   "format_specifier",
    "function",  "guard",       "key",       "left",             "module_name",  "name",        "object",
    "operator",  "operators",   "parameters", "return_type",     "right",        "subject",     "subscript",
    "superclasses", "type",     "type_conversion", "type_parameters", "value"};
inline constexpr size_t kFieldCount = sizeof(kFieldNames) / sizeof(kFieldNames[0]);
consteval uint32_t field_slot(std::string_view name) {
  for (size_t i = 0; i < kFieldCount; ++i)
    if (kFieldNames[i] == name) return static_cast<uint32_t>(i);
  throw "not a field of the tree-sitter-python grammar";  // a compile error in a consteval call
}
// The grammar's id of every slot (0 when the grammar lacks the field), built on first use.
const TSFieldId* field_ids();
}  // namespace syntax_detail
struct FieldName {
  template <size_t N>
  consteval FieldName(const char (&name)[N]) : slot(syntax_detail::field_slot(std::string_view(name, N - 1))) {}
  uint32_t slot;
  TSFieldId id() const {
    static const TSFieldId* ids = syntax_detail::field_ids();
    return ids[slot];
  }
};
class ChildIndex;
Node parent(Node n);
inline bool same(Node a, Node b) { return a.id == b.id && a.tree == b.tree; }
inline uint32_t start(Node n) { return n.context[0]; }
inline uint32_t end(Node n) { return ts_node_end_byte(n); }
inline TextRange range(Node n) { return {start(n), end(n)}; }
inline std::string_view text(Node n, std::string_view src) {
  return is_null(n) ? std::string_view{} : src.substr(start(n), end(n) - start(n));
}
// Every node's children, fields and parent, recorded in one breadth-first traversal of a tree
// (one cursor step per node). While an index is installed on the thread (ScopedChildIndex),
// for_each_child(), field() and parent() read it instead of asking tree-sitter (a cursor step
// costs hundreds of instructions in tree-sitter 0.20, ts_node_parent walks down from the root).
// The field of a child is asked only under a node whose type has fields in the grammar (its
// node-types.json, embedded at build time) or that is an ERROR node.
class ChildIndex {
 public:
  explicit ChildIndex(Node root);
  struct Entry {
    uint32_t first = 0, count = 0;                // children: nodes_[first, first + count)
    uint32_t fields_first = 0, fields_count = 0;  // fields: fields_[fields_first, + fields_count)
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
  // The first child that carries field `id`, as a cursor reports the field of each child (and as
  // ts_node_child_by_field_id answers, but for a field tree-sitter 0.20 inherits through a visible
  // aliased child: `alternative` of a match statement, a field of its `block`).
  Node field(const Entry& e, TSFieldId id) const {
    for (uint32_t i = e.fields_first; i < e.fields_first + e.fields_count; ++i)
      if (fields_[i].id == id) return fields_[i].node;
    return Node{};
  }

 private:
  // Open addressing on node ids (flat: no allocation per node).
  struct Slot {
    const void* id = nullptr;
    uint32_t entry = 0;
  };
  struct FieldChild {
    TSFieldId id = 0;
    Node node{};
  };
  size_t slot_of(const void* id) const {
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(id) >> 3) * 0x9E3779B97F4A7C15ull >> 20) & mask_;
  }
  void add_child(Node c);
  const TSTree* tree_ = nullptr;
  std::vector<Node> nodes_;
  std::vector<char> code_;  // per nodes_ entry: named and not an extra
  std::vector<FieldChild> fields_;  // per node, the first child of each field it has
  std::vector<Entry> entries_;      // breadth-first: the root, then nodes_[k - 1] for entry k
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

inline Node field(Node n, FieldName name) {
  if (is_null(n)) return n;
  TSFieldId id = name.id();
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
// A short list of nodes: up to kInline kept inline (no allocation), more on the heap. What
// named_children() returns: most nodes have a handful of children, and a std::vector per call
// was a malloc and a free per node visited.
class NodeList {
 public:
  static constexpr uint32_t kInline = 8;
  NodeList() = default;
  NodeList(const NodeList& o) { assign(o); }
  NodeList& operator=(const NodeList& o) {
    if (this != &o) {
      size_ = 0;
      heap_.clear();
      assign(o);
    }
    return *this;
  }
  void push_back(Node n) {
    if (size_ < kInline) {
      inline_[size_++] = n;
      return;
    }
    if (size_ == kInline) heap_.assign(inline_, inline_ + kInline);
    heap_.push_back(n);
    ++size_;
  }
  const Node* data() const { return size_ <= kInline ? inline_ : heap_.data(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Node& operator[](size_t i) const { return data()[i]; }
  const Node* begin() const { return data(); }
  const Node* end() const { return data() + size_; }
  const Node& front() const { return data()[0]; }
  const Node& back() const { return data()[size_ - 1]; }
  operator std::vector<Node>() const { return std::vector<Node>(begin(), end()); }

 private:
  void assign(const NodeList& o) {
    if (o.size_ <= kInline) std::copy(o.inline_, o.inline_ + o.size_, inline_);
    else heap_ = o.heap_;
    size_ = o.size_;
  }
  Node inline_[kInline];
  std::vector<Node> heap_;  // every element once size_ > kInline
  uint32_t size_ = 0;
};

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
// A list/set/dict comprehension or a generator expression: a loop whose `body` runs per element.
inline bool is_comprehension_kind(std::string_view k) {
  return k == "list_comprehension" || k == "set_comprehension" || k == "dictionary_comprehension" ||
         k == "generator_expression";
}
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
inline NodeList named_children(Node n) {
  NodeList out;
  for_each_named_child(n, [&](Node c) {
    out.push_back(c);
    return true;
  });
  return out;
}
// Calls f(child) for the named children without extras, last to first (the order a stack-based
// walk pushes them in). `f` may iterate children itself.
template <class F>
inline void for_each_named_child_reverse(Node n, F&& f) {
  if (is_null(n)) return;
  if (const ChildIndex* index = current_child_index()) {
    if (const ChildIndex::Entry* e = index->find(n)) {
      const Node* kids = index->children(*e);
      for (uint32_t i = e->count; i-- > 0;)
        if (index->is_named_code(*e, i)) f(kids[i]);
      return;
    }
  }
  NodeList kids = named_children(n);
  for (size_t i = kids.size(); i-- > 0;) f(kids[i]);
}
// Calls visit(identifier) for the identifiers at or below `root`, depth first, last child first
// (an explicit stack, each node's named children pushed first to last); `visit` returns false to
// stop. With `skip_scopes`, nested function and class definitions and lambdas are not entered
// (nor `root` when it is one). With `cap` > 0, the walk gives up once it has taken more than `cap`
// nodes from its stack. True when every identifier was visited, false when `visit` stopped the
// walk or the cap did. O(nodes below root).
template <class Visit>
inline bool for_each_identifier(Node root, bool skip_scopes, Visit&& visit, size_t cap = 0) {
  std::vector<Node> stack{root};
  for (size_t work = 0; !stack.empty(); ++work) {
    if (cap && work > cap) return false;
    Node n = stack.back();
    stack.pop_back();
    std::string_view k = kind(n);
    if (skip_scopes && (k == "function_definition" || k == "class_definition" || k == "lambda")) continue;
    if (k != "identifier") {
      for_each_named_child(n, [&](Node c) {
        stack.push_back(c);
        return true;
      });
      continue;
    }
    if (!visit(n)) return false;
  }
  return true;
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
// Per symbol of the grammar: whether its name is "parenthesized_expression" (built once).
const bool* paren_symbols();
// Strips parentheses around an expression. The node's type is read as a symbol (no name
// compared) and its named children in one pass.
inline Node unparen(Node n) {
  static const bool* paren = paren_symbols();
  static const uint32_t count = ts_language_symbol_count(tree_sitter_python());
  while (!is_null(n)) {
    TSSymbol s = ts_node_symbol(n);
    if (s < count ? !paren[s] : kind(n) != "parenthesized_expression") break;
    Node only{};
    uint32_t named = 0;
    for_each_named_child(n, [&](Node c) {
      if (named++ == 0) only = c;
      return named < 2;
    });
    if (named != 1) break;
    n = only;
  }
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
