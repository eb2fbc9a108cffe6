// TX003: the same value moved to the GPU on every step.
#include "python/rules/common.h"

namespace stoker::python::rules {

void tx003_loop_invariant_transfer(Context& ctx, Node call) {
  const auto& m = ctx.model();
  std::string_view meth = method_name(ctx, call);
  if ((meth != "to" && meth != "cuda") || !m.is_move_to_cuda(call)) return;
  Node recv = receiver(call);
  std::string key;
  if (is(recv, "identifier")) key = std::string(ctx.text(recv));
  else if (is(recv, "attribute") && ctx.text(field(recv, "object")) == "self")
    key = "self." + std::string(ctx.text(field(recv, "attribute")));
  if (key.empty() || m.is_batch_value(recv)) return;
  // `x = x.to(device)`: the first step moves it; every later `.to` finds it there (no copy).
  if (Node p = parent(call); is(p, "assignment") && same(field(p, "right"), call) && ctx.text(field(p, "left")) == ctx.text(recv))
    return;
  // Already on the GPU (`.to` returns the tensor itself), or a module (moved in place once;
  // later calls copy nothing).
  if (m.is_cuda(recv) || m.is_module(recv)) return;
  HotContext h = ctx.hot();
  if (!h.hot) return;
  Node region = h.loop >= 0 ? m.loops()[h.loop].node : m.functions()[ctx.frame().function].node;
  if (m.assigned_within(key, region)) return;
  // Parameters of a hot function change from call to call.
  for (const auto* b : m.lookup(key, start(recv)))
    if (b->kind == Binding::Kind::Param || b->kind == Binding::Kind::LoopTarget) return;
  Diagnostic* d = ctx.report_in_hot_context(
      "TX003", call, "`" + key + "` does not change inside the loop but is moved to the GPU on every step; move it once before the loop");
  if (d) d->fix = Fix{"Move it to the device once, before the loop", Applicability::DisplayOnly, {}};
}

}  // namespace stoker::python::rules
