// TX001: a batch copied to the GPU without non_blocking=True.
#include "python/rules/common.h"
#include "python/types.h"

namespace stoker::python::rules {

void tx001_blocking_host_to_device_copy(Context& ctx, Node call) {
  const auto& m = ctx.model();
  std::string_view meth = method_name(ctx, call);
  if ((meth != "to" && meth != "cuda") || !m.is_move_to_cuda(call)) return;
  if (!m.is_batch_value(receiver(call))) return;
  // A batch whose type puts it on CUDA already (a loader prepared by Accelerate or Fabric yields
  // device batches) is not copied from the host.
  if (m.types().cuda(receiver(call)) == CudaAnswer::Cuda) return;
  // `async=True` is PyTorch's name for it before 0.4 (`.cuda(async=True)`, `**{"async": True}`).
  auto kwargs = m.keyword_arguments(call);
  Node nb = kwargs.find("non_blocking");
  if (is_null(nb)) nb = kwargs.find("async");
  if (!is_null(nb)) {
    auto c = m.constant(nb);
    if (!c || (c->kind == Value::Kind::Bool && c->b)) return;
  }
  // Is any loader feeding training unpinned? Then the copy stays synchronous until pinned.
  bool unpinned = m.memo("unpinned_loader", [&] {
    for (const auto& cs : m.calls())
      if (m.is_loader_call(cs.call) && bool_argument_state(ctx, cs.call, kPinMemoryPos, "pin_memory") != 0 &&
          m.loader_feeds_training(cs.call))
        return 1;
    return 0;
  }) != 0;
  std::string msg = "Blocking host-to-device copy of a batch in the training loop; pass `non_blocking=True`";
  if (unpinned) msg += " (with `pin_memory=True` on the loader, see DL002, so the copy can overlap)";
  Diagnostic* d = ctx.report_in_hot_context("TX001", call, msg);
  if (!d) return;
  Fix fix{"Copy asynchronously: `non_blocking=True`", Applicability::Safe, {}};
  fix.edits.push_back(set_keyword(ctx, call, "non_blocking", "True"));
  d->fix = fix;
}

}  // namespace stoker::python::rules
