// DL004: a DataLoader constructed inside an epoch or training loop.
#include <set>

#include "python/rules/common.h"

namespace stoker::python::rules {
namespace {

// Does any identifier in `expr` name something assigned inside `region`?
bool depends_on_region(const Context& ctx, Node expr, Node region) {
  std::vector<Node> stack{expr};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    if (is(n, "identifier")) {
      if (ctx.model().assigned_within(ctx.text(n), region)) return true;
      continue;
    }
    if (is(n, "attribute")) {
      Node obj = field(n, "object");
      if (ctx.text(obj) == "self" && ctx.model().assigned_within("self." + std::string(ctx.text(field(n, "attribute"))), region))
        return true;
    }
    for (auto c : named_children(n)) stack.push_back(c);
  }
  return false;
}

}  // namespace

void dl004_loader_built_in_loop(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda() || !m.is_loader_call(call)) return;
  Node args = field(call, "arguments");
  const auto& frame = ctx.frame();
  auto report = [&](std::optional<Node> via) {
    Diagnostic& d = ctx.report("DL004", field(call, "function"),
                               "`DataLoader` is constructed on every iteration of a training or epoch loop "
                               "(starting its workers each time); build it once before the loop");
    if (via) d.related.push_back({ctx.file().path, range(*via), "called once per iteration here"});
    d.fix = Fix{"Hoist the `DataLoader` construction out of the loop", Applicability::DisplayOnly, {}};
  };
  for (auto it = frame.loops.rbegin(); it != frame.loops.rend(); ++it) {
    const Loop& loop = m.loops()[*it];
    if (loop.kind == LoopKind::Setup) continue;
    if (depends_on_region(ctx, args, loop.node)) return;  // built from per-iteration data (k-fold...)
    report(std::nullopt);
    return;
  }
  if (!frame.loops.empty() || frame.function < 0) return;
  // Built in a function that a loop calls once per iteration, directly or through functions
  // whose call sites are outside any loop (`validate()` calling `make_val_loader()`).
  std::vector<int> pending{frame.function};
  std::set<int> seen{frame.function};
  for (int depth = 0; depth < 6 && !pending.empty(); ++depth) {
    std::vector<int> next;
    for (int f : pending) {
      for (int ci : m.callers(f)) {
        const CallSite& cs = m.calls()[ci];
        bool in_loop = false;
        for (auto it = cs.loops.rbegin(); it != cs.loops.rend(); ++it) {
          const Loop& loop = m.loops()[*it];
          in_loop = true;
          if (loop.kind == LoopKind::Setup) continue;
          if (depends_on_region(ctx, field(cs.call, "arguments"), loop.node)) continue;
          report(cs.call);
          return;
        }
        if (!in_loop && cs.caller >= 0 && seen.insert(cs.caller).second) next.push_back(cs.caller);
      }
    }
    pending = std::move(next);
  }
}

}  // namespace stoker::python::rules
