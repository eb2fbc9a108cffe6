// DD004: a collective whose result is read on the host every step, and per-step barriers.
#include "python/rules/dd_common.h"

namespace stoker::python::rules {

namespace {
bool mentions(const Context& ctx, Node expr, std::string_view name) {
  return any_node(expr, [&](Node x) { return is(x, "identifier") && ctx.text(x) == name; });
}
// The first host read of `name` after `after` within `region` by the same function: `.item()`,
// `.tolist()`, `float(...)`/`int(...)` (a value for the host; a `.cpu()` copy may be where the
// program keeps its data, as feature banks gathered for k-NN evaluation are).
Node host_read_after(const Context& ctx, std::string_view name, Node after, Node region, int function) {
  const auto& m = ctx.model();
  for (const auto& cs : m.calls()) {
    if (cs.caller != function || start(cs.call) < end(after) || !contains(region, cs.call)) continue;
    std::string_view meth = method_name(ctx, cs.call);
    if (meth == "item" || meth == "tolist") {
      if (mentions(ctx, receiver(cs.call), name)) return cs.call;
      continue;
    }
    const std::string& q = m.callee_name(cs.call);
    if (q == "builtins.float" || q == "builtins.int")
      if (mentions(ctx, m.argument(cs.call, 0, ""), name)) return cs.call;
  }
  return Node{};
}
}  // namespace

void dd004_collective_readback_in_hot_loop(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  const std::string& q = m.callee_name(call);
  if (q == "torch.distributed.barrier") {
    Diagnostic* d = ctx.report_in_hot_context(
        "DD004", call,
        "`dist.barrier()` in the training loop makes every rank wait for the slowest one and drains the GPU queue "
        "every step");
    if (d) d->fix = Fix{"Remove it: DDP's gradient all-reduce already keeps the ranks in step", Applicability::DisplayOnly, {}};
    return;
  }
  if (!is_collective(q) || q == "torch.distributed.all_gather_object" || q == "torch.distributed.broadcast") return;
  Node t = unparen(m.argument(call, 0, q == "torch.distributed.all_gather" ? "tensor_list" : "tensor"));
  if (!is(t, "identifier")) return;
  // all_gather(list, t): the list holds the result, t the (CUDA) input.
  Node operand = q == "torch.distributed.all_gather" ? m.argument(call, 1, "tensor") : t;
  if (is_null(operand) || !m.is_cuda(operand)) return;
  HotContext h = ctx.hot();
  if (!h.hot) return;
  int f = ctx.frame().function;
  Node region{};
  if (!h.via_call && h.loop >= 0) region = m.loops()[h.loop].node;
  else if (f >= 0) region = m.functions()[f].node;
  if (is_null(region)) return;
  Node read = host_read_after(ctx, ctx.text(t), call, region, f);
  if (is_null(read)) return;
  Diagnostic* d = ctx.report_in_hot_context(
      "DD004", call,
      "`" + std::string(ctx.text(field(call, "function"))) + "` followed by a host read of `" +
          std::string(ctx.text(t)) + "` every step: each rank waits for the collective and for its GPU queue to drain");
  if (!d) return;
  d->related.push_back({ctx.file().path, range(read), "the result is read on the host here"});
  d->fix = Fix{"Accumulate the value on the device and reduce it every N steps (or once per epoch)",
               Applicability::DisplayOnly, {}};
}

}  // namespace stoker::python::rules
