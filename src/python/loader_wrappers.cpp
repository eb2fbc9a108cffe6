// Loader wrappers (loader_wrappers.h).
#include "python/loader_wrappers.h"

namespace stoker::python {

namespace {
// The `**name` splat among the construction's arguments whose name is function f's `**`
// parameter; null otherwise.
Node forwarded_splat(const SemanticModel& m, int f, Node construction) {
  const Function& fn = m.functions()[f];
  const Param* star2 = nullptr;
  for (const Param& p : fn.params)
    if (p.double_star) star2 = &p;
  if (!star2) return Node{};
  for (Node a : named_children(field(construction, "arguments"))) {
    if (!is(a, "dictionary_splat")) continue;
    Node d = unparen(named_child(a, 0));
    if (!is(d, "identifier") || m.text(d) != star2->name) continue;
    auto bindings = m.lookup(m.text(d), start(d));
    if (bindings.size() == 1 && bindings[0]->kind == Binding::Kind::Param && bindings[0]->function == f) return a;
  }
  return Node{};
}
}  // namespace

Node wrapped_loader_construction(const SemanticModel& m, Node call) {
  if (!is(call, "call") || m.is_loader_call(call)) return Node{};
  auto fs = m.callees(call);
  if (fs.size() != 1) return Node{};
  int f = fs[0];
  const Function& fn = m.functions()[f];
  if (fn.returns.empty() || fn.other_decorators) return Node{};
  bool star2 = false;
  for (const Param& p : fn.params) star2 |= p.double_star;
  if (!star2) return Node{};  // most functions: nothing more to read
  Node found{};
  for (Node r : fn.returns) {
    r = unparen(r);
    Node c = r;
    if (is(r, "identifier")) {
      auto vs = m.values(r);
      if (vs.size() != 1 || vs[0].kind != Value::Kind::Expr) return Node{};
      c = unparen(vs[0].expr);
    }
    if (!is(c, "call") || !m.is_loader_call(c) || !contains(fn.node, c)) return Node{};
    if (!is_null(found) && !same(found, c)) return Node{};
    found = c;
  }
  // A generator's `return` ends it: what it yields is no loader.
  if (m.text(fn.node).find("yield") != std::string_view::npos) return Node{};
  if (is_null(forwarded_splat(m, f, found))) return Node{};
  return found;
}

SemanticModel::Kwargs wrapper_site_options(const SemanticModel& m, Node site, Node construction) {
  SemanticModel::Kwargs out;
  int f = m.function_at(start(construction));
  Node splat = f >= 0 ? forwarded_splat(m, f, construction) : Node{};
  // The construction's own keywords (a `**` other than the forwarded one is read as usual).
  for (Node a : named_children(field(construction, "arguments"))) {
    if (is(a, "keyword_argument")) {
      out.items.push_back({std::string(m.text(field(a, "name"))), field(a, "value")});
    } else if (is(a, "dictionary_splat") && !same(a, splat)) {
      out.complete = false;
    } else if (is(a, "list_splat")) {
      // `*args` of the wrapper: the site's extra positional arguments could be any option.
      out.complete = false;
    }
  }
  if (f < 0) {
    out.complete = false;
    return out;
  }
  const Function& fn = m.functions()[f];
  auto named_param = [&](std::string_view k) {
    for (const Param& p : fn.params)
      if (!p.is_variadic && p.name == k) return true;
    return false;
  };
  auto site_kw = m.keyword_arguments(site);
  for (const auto& [k, v] : site_kw.items)
    if (!named_param(k)) out.items.push_back({k, v});
  if (!site_kw.complete) out.complete = false;
  return out;
}

}  // namespace stoker::python
