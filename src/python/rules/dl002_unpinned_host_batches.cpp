// DL002: batches that go to the GPU come from pageable memory.
#include "python/rules/common.h"

namespace stoker::python::rules {

void dl002_unpinned_host_batches(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda() || !m.is_loader_call(call)) return;
  int state = bool_argument_state(ctx, call, kPinMemoryPos, "pin_memory");
  if (state == 0) return;
  if (!m.loader_feeds_training(call)) return;
  // A Dataset or collate_fn that returns CUDA tensors cannot be pinned (pin_memory=True would
  // raise); DL005 reports that instead.
  if (dataset_does_cuda_work(ctx)) return;
  Diagnostic& d = ctx.report("DL002", field(call, "function"),
                             "Batches from this `DataLoader` are copied to the GPU from pageable memory; "
                             "`pin_memory=True` lets the copy run asynchronously");
  d.facts.push_back({"pin_memory", "false"});
  Fix fix;
  fix.title = "Pin batches in the loader: `pin_memory=True`";
  fix.applicability = Applicability::Safe;
  Node positional = m.argument(call, kPinMemoryPos, "");
  Node written = m.keyword_arguments(call).find("pin_memory");
  if (is_null(written)) written = positional;
  if (state == 2 && !is_null(written) && (!is_literal_argument(written) || !contains(call, written)))
    fix.applicability = Applicability::Unsafe;  // overrides a flag, constant or kwargs entry
  if (state == 2 && !is_null(positional) && is_null(m.keyword_arguments(call).find("pin_memory")))
    fix.edits.push_back(Edit{range(positional), "True"});
  else
    fix.edits.push_back(set_keyword(ctx, call, "pin_memory", "True"));
  d.fix = fix;
}

}  // namespace stoker::python::rules
