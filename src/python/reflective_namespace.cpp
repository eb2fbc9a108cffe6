#include "python/reflective_namespace.h"

#include <string_view>

#include "python/call_positions.h"
#include "python/semantic_model.h"

namespace stoker::python {

namespace {

// A method of class `klass` bound to no instance (`@staticmethod`, `@classmethod`: its first
// parameter is the class) that calls `add_argument` on one of its parameters and returns it.
bool declares_flags(const SemanticModel& m, int klass) {
  const auto& fns = m.functions();
  for (const auto& cs : m.calls()) {
    if (cs.caller < 0 || fns[cs.caller].klass != klass) continue;
    const Function& g = fns[cs.caller];
    Node fn = unparen(field(cs.call, "function"));
    if (!is(fn, "attribute") || m.text(field(fn, "attribute")) != "add_argument") continue;
    Node obj = unparen(field(fn, "object"));
    if (!is(obj, "identifier")) continue;
    std::string_view parser = m.text(obj);
    bool classmethod = false;
    if (Node dd = parent(g.node); is(dd, "decorated_definition"))
      for (Node d : named_children(dd))
        if (is(d, "decorator") && m.text(d) == "@classmethod") classmethod = true;
    if (!g.static_method && !classmethod) continue;
    bool param = false, returned = false;
    for (const auto& p : g.params) param = param || (!p.is_variadic && p.name == parser);
    for (Node r : g.returns) returned = returned || (is(unparen(r), "identifier") && m.text(unparen(r)) == parser);
    if (param && returned) return true;
  }
  return false;
}

}  // namespace

bool reflective_namespace_param(const SemanticModel& m, int f, int pi) {
  const auto& fns = m.functions();
  if (f < 0 || static_cast<size_t>(f) >= fns.size()) return false;
  const Function& fn = fns[f];
  if (fn.klass < 0 || fn.name != "__init__" || pi < bound_params(fn) || static_cast<size_t>(pi) >= fn.params.size())
    return false;
  const Param& p = fn.params[pi];
  if (p.is_variadic || !is_null(p.default_value)) return false;
  return declares_flags(m, fn.klass);
}

bool reflective_namespace_node(const SemanticModel& m, Node v) {
  const auto& fns = m.functions();
  for (Node n = parent(v); !is_null(n); n = parent(n)) {
    if (!is(n, "parameters")) {
      if (is(n, "typed_parameter")) continue;
      return false;
    }
    Node def = parent(n);
    if (!is(def, "function_definition")) return false;
    int f = m.function_of(def);
    if (f < 0) return false;
    for (size_t i = 0; i < fns[f].params.size(); ++i)
      if (same(fns[f].params[i].node, v)) return reflective_namespace_param(m, f, static_cast<int>(i));
    return false;
  }
  return false;
}

}  // namespace stoker::python
