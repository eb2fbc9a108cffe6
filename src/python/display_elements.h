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

// The name a plain assignment `n = display` binds the display to (through parentheses, the
// display the assignment's whole right side): that identifier n, or null when the display is
// bound otherwise (an element of another display, an argument, an attribute or pattern target).
inline Node display_target(Node display) {
  Node asg = parent(display);
  while (is(asg, "parenthesized_expression")) asg = parent(asg);
  if (!is(asg, "assignment") || !same(unparen(field(asg, "right")), display)) return Node{};
  Node target = unparen(field(asg, "left"));
  return is(target, "identifier") ? target : Node{};
}

// The list or tuple displays a name may hold where it is read, when every value of it (`values`:
// its bindings, through a parameter's call sites in this module and unpacked returns of
// functions here; at most kMaxCandidates) is a display of 1 to kMaxDisplayElements elements
// without `*splat`, assigned by a plain `n = [...]` to a name n whose scope neither appends to
// it nor stores items into it (SemanticModel::appended_or_stored), nor reorders or removes them (`reordered`); an augmented assignment is a binding of
// another kind, whose value is no display. `models = [nerf_coarse, nerf_fine]`, read as
// `models[1]` or handed through `batched_inference(models, ...)` to another module. Empty
// otherwise. O(values x calls).
inline std::vector<Node> unmutated_displays(const SemanticModel& m, Node name) {
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
    Node target = display_target(v);
    if (is_null(target)) return {};
    int scope = m.scope_at(start(target));
    std::string held(m.text(target));
    if (m.appended_or_stored(scope, held) || reordered(m, scope, held)) return {};
    bool dup = false;
    for (Node o : out) dup = dup || same(o, v);
    if (!dup) out.push_back(v);
  }
  return out;
}

}  // namespace stoker::python::display_detail
