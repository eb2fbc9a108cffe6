// DD006: a DistributedSampler whose epoch is never advanced: the same shuffle every epoch.
#include "python/rules/dd_common.h"

namespace stoker::python::rules {

namespace {
bool is_distributed_sampler(const SemanticModel& m, Node call) {
  const std::string& q = m.callee_name(call);
  return q == "torch.utils.data.distributed.DistributedSampler" || q == "torch.utils.data.DistributedSampler";
}
}  // namespace

void dd006_sampler_epoch_not_set(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda() || !m.is_loader_call(call)) return;
  Node sampler = m.keyword_arguments(call).find("sampler");
  if (is_null(sampler)) return;
  Node construction{};
  for (const auto& v : m.values(sampler))
    if (v.kind == Value::Kind::Expr && is(v.expr, "call") && is_distributed_sampler(m, v.expr)) construction = v.expr;
  if (is_null(construction)) return;
  // shuffle=False: the order does not depend on the epoch.
  if (bool_argument_state(ctx, construction, 3, "shuffle") == 2) return;
  // Any set_epoch in the file (on the sampler, `loader.sampler`, a batch sampler...) counts:
  // precision first.
  bool set = m.memo("dd006:set_epoch", [&] {
    for (const auto& cs : m.calls())
      if (method_name(ctx, cs.call) == "set_epoch") return 1;
    return 0;
  }) != 0;
  if (set) return;
  int epoch_loop = -1;
  for (int l : m.loops_iterating(call))
    if (m.loop_runs_per_epoch(l)) {
      epoch_loop = m.loops()[l].parent_loop;
      if (epoch_loop < 0) epoch_loop = l;
      break;
    }
  if (epoch_loop < 0) return;
  Diagnostic& d = ctx.report("DD006", field(construction, "function"),
                             "This `DistributedSampler` shuffles with the same seed every epoch: the loop never "
                             "calls `set_epoch(epoch)`, so every epoch visits the samples in the same order");
  Node loop = m.loops()[epoch_loop].node;
  d.related.push_back({ctx.file().path, TextRange{start(loop), start(loop) + 3}, "the epoch loop"});
  d.fix = Fix{"Call `sampler.set_epoch(epoch)` at the start of every epoch", Applicability::DisplayOnly, {}};
}

}  // namespace stoker::python::rules
