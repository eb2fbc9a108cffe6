#include "python/host_items.h"

#include <string_view>
#include <vector>

#include "python/semantic_model.h"

namespace stoker::python {

namespace {

// `v` read back to the host as its last operation: `.numpy()`, `.tolist()`, `.item()`, `.cpu()`,
// followed only by attributes (`.T`) or calls that keep a host value host (`.detach()`, `.copy()`).
bool read_back(const SemanticModel& m, Node v) {
  v = unparen(v);
  for (int depth = 0; depth < 16 && !is_null(v); ++depth) {
    if (is(v, "attribute")) {
      v = unparen(field(v, "object"));
      continue;
    }
    if (!is(v, "call")) return false;
    Node fn = unparen(field(v, "function"));
    if (!is(fn, "attribute")) return false;
    std::string_view meth = m.text(field(fn, "attribute"));
    if (meth == "numpy" || meth == "tolist" || meth == "item" || meth == "cpu") return true;
    if (meth != "detach" && meth != "copy" && meth != "squeeze" && meth != "transpose" && meth != "astype")
      return false;
    v = unparen(field(fn, "object"));
  }
  return false;
}

// `for k in name:` (also `name.keys()`, `name.items()` with k first) whose body's own statements
// include `name[k] = v` with v read back.
bool replaces_items(const SemanticModel& m, Node loop, std::string_view name) {
  Node left = unparen(field(loop, "left"));
  if (is(left, "pattern_list") || is(left, "tuple_pattern")) left = named_count(left) ? unparen(named_child(left, 0)) : Node{};
  if (!is(left, "identifier")) return false;
  Node it = unparen(field(loop, "right"));
  if (is(it, "call")) {
    Node fn = unparen(field(it, "function"));
    if (!is(fn, "attribute") || named_count(field(it, "arguments")) != 0) return false;
    std::string_view meth = m.text(field(fn, "attribute"));
    if (meth != "keys" && meth != "items") return false;
    it = unparen(field(fn, "object"));
  }
  if (!is(it, "identifier") || m.text(it) != name) return false;
  Node body = field(loop, "body");
  if (!is(body, "block")) return false;
  for (Node st : named_children(body)) {
    if (!is(st, "expression_statement") || named_count(st) != 1) continue;
    Node a = named_child(st, 0);
    if (!is(a, "assignment")) continue;
    Node target = unparen(field(a, "left"));
    if (!is(target, "subscript")) continue;
    Node obj = unparen(field(target, "value")), key = unparen(field(target, "subscript"));
    if (is(obj, "identifier") && m.text(obj) == name && is(key, "identifier") && m.text(key) == m.text(left) &&
        read_back(m, field(a, "right")))
      return true;
  }
  return false;
}

// Something in `n` may change what `name` holds or its items: a binding of the name, a store
// into an item or attribute of it, a call of a method on it (any use but a read or an argument).
bool touches(const SemanticModel& m, Node n, std::string_view name) {
  bool found = false;
  std::vector<Node> stack{n};
  while (!stack.empty() && !found) {
    Node c = stack.back();
    stack.pop_back();
    if (is(c, "identifier") && m.text(c) == name) {
      Node p = parent(c);
      if (is(p, "attribute") && same(field(p, "attribute"), c)) continue;
      if (is(p, "keyword_argument") && same(field(p, "name"), c)) continue;
      // A plain read (`x = name[k]`, `f(name[k])`, the name handed to a call: a library saving
      // the arrays) leaves it; a binding, a store into an item or attribute, a method call on it
      // (`name.update(...)`) may not.
      if (is(p, "subscript") || is(p, "attribute")) {
        Node up = parent(p);
        if ((is(up, "assignment") || is(up, "augmented_assignment")) && same(unparen(field(up, "left")), p)) found = true;
        if (is(p, "attribute") && is(up, "call") && same(unparen(field(up, "function")), p)) found = true;
        continue;
      }
      if (is(p, "argument_list") || (is(p, "keyword_argument") && same(field(p, "value"), c))) continue;
      found = true;
      continue;
    }
    for_each_named_child(c, [&](Node k) {
      stack.push_back(k);
      return true;
    });
  }
  return found;
}

}  // namespace

bool items_read_back(const SemanticModel& m, Node use) {
  use = unparen(use);
  if (!is(use, "identifier")) return false;
  std::string_view name = m.text(use);
  Node below = use;
  // The read sits in a loop whose later statements may rebind the name for the next pass: only a
  // replacing loop inside that loop counts.
  bool in_loop = false;
  for (Node n = parent(use); !is_null(n); below = n, n = parent(n)) {
    if (is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda") || is(n, "module")) return false;
    if (is(n, "for_statement") || is(n, "while_statement")) in_loop = true;
    if (!is(n, "block")) continue;
    // The statements of this block before the one holding the read, last first.
    auto kids = named_children(n);
    size_t at = kids.size();
    for (size_t i = 0; i < kids.size(); ++i)
      if (same(kids[i], below)) at = i;
    if (at == kids.size()) continue;
    for (size_t i = at; i-- > 0;) {
      Node st = kids[i];
      if (is(st, "for_statement") && replaces_items(m, st, name)) return !in_loop;
      if (touches(m, st, name)) return false;
    }
  }
  return false;
}

}  // namespace stoker::python
