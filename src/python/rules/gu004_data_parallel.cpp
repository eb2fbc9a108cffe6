// GU004: nn.DataParallel (single-process, multi-thread) instead of DistributedDataParallel.
#include "python/rules/gu_common.h"

namespace stoker::python::rules {

void gu004_data_parallel(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  const std::string& q = m.callee_name(call);
  if (q != "torch.nn.DataParallel" && q != "torch.nn.parallel.DataParallel" &&
      q != "torch.nn.parallel.data_parallel.DataParallel")
    return;
  if (gu::guard_state(ctx) == 2) return;
  Diagnostic& d = ctx.report("GU004", field(call, "function"),
                             "`nn.DataParallel` replicates the model and scatters every batch from one process "
                             "each step; `DistributedDataParallel` is faster even on one machine");
  d.fix = Fix{"Use `torch.nn.parallel.DistributedDataParallel` with one process per GPU (torchrun)",
              Applicability::DisplayOnly, {}};
  gu::attach_speedup(ctx, d);
}

}  // namespace stoker::python::rules
