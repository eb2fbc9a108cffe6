// DL005: CUDA work inside a Dataset or collate_fn.
#include "python/rules/common.h"

namespace stoker::python::rules {
namespace {

bool is_dataset_method(const SemanticModel& m, int f) {
  if (f < 0) return false;
  const Function& fn = m.functions()[f];
  if (fn.klass < 0) return false;
  if (fn.name != "__getitem__" && fn.name != "__iter__" && fn.name != "__next__" && fn.name != "__getitems__")
    return false;
  return m.is_subclass_of(fn.klass, {"torch.utils.data.Dataset", "torch.utils.data.IterableDataset",
                                     "torch.utils.data.dataset.Dataset", "torch.utils.data.dataset.IterableDataset"});
}

bool is_collate_fn(const SemanticModel& m, int f) {
  if (f < 0) return false;
  // One pass over the loader calls marks every function passed as a collate_fn
  // ("collate_fn:<f>" = 1); functions never marked read 0.
  m.memo("collate_fns_marked", [&] {
    for (const auto& cs : m.calls()) {
      if (!m.is_loader_call(cs.call)) continue;
      Node c = m.keyword_arguments(cs.call).find("collate_fn");
      if (is_null(c)) continue;
      for (const auto& v : m.values(c)) {
        if (v.kind != Value::Kind::Expr) continue;
        if (int g = m.function_of(v.expr); g >= 0) m.memo("collate_fn:" + std::to_string(g), [] { return 1; });
      }
    }
    return 1;
  });
  return m.memo("collate_fn:" + std::to_string(f), [] { return 0; }) != 0;
}

bool is_cuda_work(const SemanticModel& m, Node call) {
  if (m.is_move_to_cuda(call)) return true;
  std::string q = m.callee_name(call);
  if (q.rfind("torch.cuda.", 0) == 0 && q != "torch.cuda.is_available" && q != "torch.cuda.device_count") return true;
  if (q.rfind("torch.", 0) == 0) {
    Node dev = m.argument(call, -1, "device");
    if (!is_null(dev) && m.device_kind(dev) == SemanticModel::DeviceKind::Cuda) return true;
  }
  return false;
}

}  // namespace

bool dataset_does_cuda_work(const Context& ctx) {
  const auto& m = ctx.model();
  return m.memo("dataset_does_cuda_work", [&] {
    for (const auto& cs : m.calls())
      if ((is_dataset_method(m, cs.caller) || is_collate_fn(m, cs.caller)) && is_cuda_work(m, cs.call)) return 1;
    return 0;
  }) != 0;
}

void dl005_cuda_work_in_dataset(Context& ctx, Node call) {
  const auto& m = ctx.model();
  int f = ctx.frame().function;
  if (f < 0 || !m.uses_cuda()) return;
  bool dataset = is_dataset_method(m, f);
  if (!dataset && !is_collate_fn(m, f)) return;
  if (!is_cuda_work(m, call)) return;
  Diagnostic& d = ctx.report("DL005", call,
                             std::string("CUDA work in ") +
                                 (dataset ? "`" + m.functions()[f].name + "`" : std::string("a `collate_fn`")) +
                                 " runs on the loading path: it cannot use worker processes and serializes "
                                 "loading with the training step");
  d.fix = Fix{"Return CPU tensors; move the batch in the training loop with `non_blocking=True`",
              Applicability::DisplayOnly, {}};
}

}  // namespace stoker::python::rules
