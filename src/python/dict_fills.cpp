#include "python/dict_fills.h"

#include <algorithm>
#include <string_view>

#include "python/types.h"

namespace stoker::python {

namespace {

// The index of the parameter that every binding of `n` in f's scope is, or -1.
int only_param(const SemanticModel& m, const Function& fn, std::string_view n) {
  const auto& bindings = m.scopes()[fn.scope].bindings;
  auto it = bindings.find(n);
  if (it == bindings.end()) return -1;
  int index = -1;
  for (const Binding& b : it->second) {
    if (b.kind != Binding::Kind::Param) return -1;
    index = b.param_index;
  }
  return index;
}

// `n` reads the loop's value name, or `source[k]`.
bool reads_item(const SemanticModel& m, Node n, std::string_view value, std::string_view source, std::string_view k) {
  if (is(n, "identifier")) return !value.empty() && text(n, m.src()) == value;
  if (is(n, "subscript")) {
    Node o = unparen(field(n, "value")), i = unparen(field(n, "subscript"));
    if (is(o, "identifier") && text(o, m.src()) == source && is(i, "identifier") && text(i, m.src()) == k) return true;
  }
  for (Node c : named_children(n))
    if (reads_item(m, c, value, source, k)) return true;
  return false;
}

// The assignments `P[k] = v` in f's body (not in nested functions or classes), P a name.
void subscript_stores(Node n, std::vector<Node>& out) {
  for (Node c : named_children(n)) {
    if (is(c, "function_definition") || is(c, "class_definition") || is(c, "lambda")) continue;
    if (is(c, "assignment") && is(unparen(field(c, "left")), "subscript")) out.push_back(c);
    subscript_stores(c, out);
  }
}

}  // namespace

std::vector<std::pair<int, int>> param_fills(const SemanticModel& m, int f) {
  std::vector<std::pair<int, int>> out;
  const Function& fn = m.functions()[f];
  std::vector<Node> stores;
  subscript_stores(field(fn.node, "body"), stores);
  for (Node store : stores) {
    Node target = unparen(field(store, "left"));
    Node into = unparen(field(target, "value")), k = unparen(field(target, "subscript"));
    if (!is(into, "identifier") || !is(k, "identifier")) continue;
    int p = only_param(m, fn, text(into, m.src()));
    if (p < 0 || fn.params[p].is_variadic) continue;
    for (Node n = parent(store); !is_null(n) && !same(n, fn.node); n = parent(n)) {
      if (!is(n, "for_statement")) continue;
      Node left = unparen(field(n, "left")), value{};
      if (is(left, "pattern_list") || is(left, "tuple_pattern")) {
        if (named_count(left) != 2) continue;
        value = unparen(named_child(left, 1));
        left = unparen(named_child(left, 0));
      }
      if (!is(left, "identifier") || text(left, m.src()) != text(k, m.src())) continue;
      Node source = unparen(field(n, "right"));
      bool items = false;
      if (is(source, "call")) {
        Node meth = unparen(field(source, "function"));
        std::string_view a = is(meth, "attribute") ? text(field(meth, "attribute"), m.src()) : std::string_view{};
        if (a != "items" && a != "keys") break;
        items = a == "items";
        source = unparen(field(meth, "object"));
      }
      int q = is(source, "identifier") ? only_param(m, fn, text(source, m.src())) : -1;
      if (q < 0 || q == p || fn.params[q].is_variadic || (items && !is(value, "identifier"))) break;
      if (reads_item(m, field(store, "right"), items ? text(value, m.src()) : std::string_view{}, text(source, m.src()),
                     text(k, m.src())) &&
          std::find(out.begin(), out.end(), std::make_pair(p, q)) == out.end())
        out.emplace_back(p, q);
      break;
    }
  }
  return out;
}

std::vector<Node> dict_fill_sources(const SemanticModel& m, const TypeInference& types, Node name) {
  std::vector<Node> out;
  name = unparen(name);
  if (!is(name, "identifier")) return out;
  const int scope = m.scope_at(start(name));
  if (scope < 0 || m.scopes()[scope].function < 0) return out;
  const int caller = m.scopes()[scope].function;
  const std::string_view n = text(name, m.src());
  for (const CallSite& site : m.calls()) {
    if (site.caller != caller) continue;
    bool passes = false;
    for (Node a : named_children(field(site.call, "arguments"))) {
      Node v = unparen(is(a, "keyword_argument") ? field(a, "value") : a);
      passes = passes || (is(v, "identifier") && text(v, m.src()) == n);
    }
    if (!passes) continue;
    for (int f : m.callees(site.call))
      for (const auto& [into, from] : param_fills(m, f)) {
        Node target = unparen(types.site_argument(f, into, site.call));
        if (!is(target, "identifier") || text(target, m.src()) != n || m.scope_at(start(target)) != scope) continue;
        Node source = types.site_argument(f, from, site.call);
        if (!is_null(source)) out.push_back(source);
      }
  }
  return out;
}

}  // namespace stoker::python
