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

// The one loader construction in fn that every `return` of fn gives, directly or through a name
// bound once to it; null otherwise. O(returns).
Node sole_returned_loader(const SemanticModel& m, const Function& fn) {
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
  return found;
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
  Node found = sole_returned_loader(m, fn);
  if (is_null(found)) return Node{};
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

int loader_workers_param(const SemanticModel& m, int f) {
  if (f < 0) return -1;
  const Function& fn = m.functions()[f];
  if (fn.klass >= 0 || fn.returns.empty() || fn.other_decorators) return -1;
  Node found = sole_returned_loader(m, fn);
  if (is_null(found)) return -1;
  // `num_workers=num_workers` and `batch_size=batch_size` of parameters of f that have defaults.
  int out = -1;
  bool batch_size = false;
  for (Node a : named_children(field(found, "arguments"))) {
    if (is(a, "dictionary_splat") || is(a, "list_splat")) return -1;
    if (!is(a, "keyword_argument")) continue;
    std::string_view k = m.text(field(a, "name"));
    if (k == "persistent_workers") return -1;
    if (k != "num_workers" && k != "batch_size") continue;
    Node v = unparen(field(a, "value"));
    if (!is(v, "identifier") || m.text(v) != k) return -1;
    auto bindings = m.lookup(m.text(v), start(v));
    if (bindings.size() != 1 || bindings[0]->kind != Binding::Kind::Param || bindings[0]->function != f) return -1;
    int pi = bindings[0]->param_index;
    if (pi < 0 || static_cast<size_t>(pi) >= fn.params.size() || fn.params[pi].is_variadic ||
        is_null(fn.params[pi].default_value))
      return -1;
    if (k == "num_workers") out = pi;
    else batch_size = true;
  }
  if (out < 0 || !batch_size) return -1;
  // A generator's `return` ends it: what it yields is no loader.
  if (m.text(fn.node).find("yield") != std::string_view::npos) return -1;
  return out;
}

Node wrapper_site_workers(const SemanticModel& m, Node call) {
  if (!is(call, "call") || m.is_loader_call(call)) return Node{};
  const FunctionFacts* ext = m.callee_facts(call, fact::kReturnsLoader);
  if (!ext || ext->method || !ext->returns_loader || ext->workers_param < 0 ||
      static_cast<size_t>(ext->workers_param) >= ext->params.size())
    return Node{};
  const ParamSummary& p = ext->params[static_cast<size_t>(ext->workers_param)];
  if (p.star || p.double_star || p.name != "num_workers") return Node{};
  return m.argument(call, p.keyword_only ? -1 : ext->workers_param, p.name);
}

bool workers_decided_at_sites(const SemanticModel& m, Node construction) {
  int f = m.function_at(start(construction));
  int wp = loader_workers_param(m, f);
  if (wp < 0) return false;
  const ArgFacts* a = m.incoming_param_facts(f, wp, fact::kValues);
  if (!a || !a->passed || a->defaulted) return false;
  for (const auto& cs : m.calls())
    for (int g : m.callees(cs.call))
      if (g == f) return false;  // a call site here: judged at the construction, as before
  return true;
}

}  // namespace stoker::python
