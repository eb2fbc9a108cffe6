#pragma once
// Elements of list and tuple displays held by names, read back by an index or handed to another
// module (session 40, coll40): `models = [nerf_coarse, nerf_fine]` then `models[1]`. A header of
// its own so that the readers (TypeInference, the summary) share one definition.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "python/semantic_model.h"

namespace stoker::python::display_detail {

// At most this many elements per display are read by position.
inline constexpr size_t kMaxDisplayElements = 8;

// Whether a call in scope `scope` moves, removes or adds items of the name other than by
// `append`: `insert`, `pop`, `remove`, `sort`, `reverse`, `clear`, `extend`. O(calls).
inline bool reordered(const SemanticModel& m, int scope, std::string_view name) {
  for (const auto& cs : m.calls()) {
    Node f = unparen(field(cs.call, "function"));
    if (!is(f, "attribute")) continue;
    std::string_view meth = m.text(field(f, "attribute"));
    if (meth != "insert" && meth != "pop" && meth != "remove" && meth != "sort" && meth != "reverse" &&
        meth != "clear" && meth != "extend")
      continue;
    Node o = unparen(field(f, "object"));
    if (is(o, "identifier") && m.text(o) == name && m.scope_at(start(o)) == scope) return true;
  }
  return false;
}

// The list or tuple displays a name may hold where it is read, when every value of it (`values`:
// its bindings, through a parameter's call sites in this module and unpacked returns of
// functions here; at most kMaxCandidates) is a display of 1 to kMaxDisplayElements elements
// without `*splat`, assigned by a plain `n = [...]` to a name n whose scope neither appends to
// it nor stores items into it (`filled(scope, n)`: the caller's index of appends and item
// stores), nor reorders or removes them (`reordered`); an augmented assignment is a binding of
// another kind, whose value is no display. `models = [nerf_coarse, nerf_fine]`, read as
// `models[1]` or handed through `batched_inference(models, ...)` to another module. Empty
// otherwise. O(values x calls).
template <class Filled>
std::vector<Node> unmutated_displays(const SemanticModel& m, Node name, Filled&& filled) {
  name = unparen(name);
  if (!is(name, "identifier")) return {};
  auto vs = m.values(name);
  if (vs.empty() || vs.size() > SemanticModel::kMaxCandidates) return {};
  std::vector<Node> out;
  for (const Value& val : vs) {
    Node v = val.kind == Value::Kind::Expr ? unparen(val.expr) : Node{};
    if (!is(v, "list") && !is(v, "tuple")) return {};
    size_t n = 0;
    for (Node e : named_children(v)) {
      if (is(e, "comment")) continue;
      if (is(e, "list_splat") || ++n > kMaxDisplayElements) return {};
    }
    if (n == 0) return {};
    Node asg = parent(v);
    while (is(asg, "parenthesized_expression")) asg = parent(asg);
    Node target = is(asg, "assignment") ? unparen(field(asg, "left")) : Node{};
    if (!is(target, "identifier") || !same(unparen(field(asg, "right")), v)) return {};
    int scope = m.scope_at(start(target));
    std::string held(m.text(target));
    if (filled(scope, held) || reordered(m, scope, held)) return {};
    bool dup = false;
    for (Node o : out) dup = dup || same(o, v);
    if (!dup) out.push_back(v);
  }
  return out;
}

}  // namespace stoker::python::display_detail
