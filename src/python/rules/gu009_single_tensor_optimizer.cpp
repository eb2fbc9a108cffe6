// GU009: an optimizer that updates parameters one tensor at a time (a kernel per parameter).
#include "python/rules/gu_common.h"

namespace stoker::python::rules {

namespace {
// Optimizers with a multi-tensor (foreach) implementation since PyTorch 1.13.
constexpr std::string_view kForeach[] = {"SGD",  "Adam",  "AdamW", "RMSprop", "Adagrad", "Adadelta",
                                         "Adamax", "NAdam", "RAdam", "ASGD",    "Rprop"};
}

void gu009_single_tensor_optimizer(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  const std::string& q = m.callee_name(call);
  if (q.rfind("torch.optim.", 0) != 0) return;
  std::string_view name = std::string_view(q).substr(q.rfind('.') + 1);
  bool known = false;
  for (auto n : kForeach) known |= n == name;
  if (!known) return;
  auto kw = m.keyword_arguments(call);
  Node foreach = kw.find("foreach"), fused = kw.find("fused");
  if (!is_null(fused)) {
    auto c = m.constant(fused);
    if (!c || !(c->kind == Value::Kind::Bool && !c->b)) return;  // fused (or unknown)
  }
  bool explicit_off = false;
  if (!is_null(foreach)) {
    auto c = m.constant(foreach);
    if (!c || c->kind != Value::Kind::Bool || c->b) return;  // True or unresolved
    explicit_off = true;
  } else {
    // Before 2.0 `foreach=None` meant the single-tensor loop; since 2.0 it picks foreach for
    // CUDA parameters. Before 1.13 not every optimizer above takes `foreach` (1.11 and older
    // have no such argument): the fix would not run on the target, and the program's floor
    // says nothing of the release it runs, so the default is not reported there.
    TorchVersion target = gu::target_torch(ctx);
    if (!kw.complete || !(target < TorchVersion{2, 0}) || target < TorchVersion{1, 13}) return;
  }
  if (gu::guard_state(ctx) == 2) return;
  std::string msg = "`" + std::string(name) + "` " +
                    (explicit_off ? std::string("with `foreach=False`")
                                  : "with the default `foreach=None`, which on PyTorch " +
                                        gu::target_torch(ctx).str() + " (target-torch-version) is the single-tensor "
                                        "implementation,") +
                    " launches its update kernels once per parameter tensor";
  Diagnostic& d = ctx.report("GU009", field(call, "function"), msg);
  d.facts.push_back({"target_torch", gu::target_torch(ctx).str()});
  // Where the single-tensor update runs: the optimizer's step() calls.
  for (const auto& cs : m.calls()) {
    if (method_name(ctx, cs.call) != "step") continue;
    for (const auto& v : m.values(receiver(cs.call)))
      if (v.kind == Value::Kind::Expr && same(v.expr, call)) {
        d.related.push_back({ctx.file().path, range(cs.call), "the single-tensor update runs here"});
        break;
      }
  }
  Fix fix{"Use the multi-tensor implementation: `foreach=True`", Applicability::Safe, {}};
  // An explicit False was written on purpose (foreach uses more peak memory).
  if (explicit_off) fix.applicability = Applicability::Unsafe;
  fix.edits.push_back(set_keyword(ctx, call, "foreach", "True"));
  d.fix = fix;
  gu::attach_speedup(ctx, d);
}

}  // namespace stoker::python::rules
