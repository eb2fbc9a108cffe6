// GU011: zero_grad() that writes zeros into every gradient instead of dropping them.
#include "python/rules/gu_common.h"

namespace stoker::python::rules {

void gu011_zero_grad_keeps_tensors(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda() || method_name(ctx, call) != "zero_grad") return;
  auto kw = m.keyword_arguments(call);
  Node arg = kw.find("set_to_none");
  if (is_null(arg)) arg = m.argument(call, 0, "");
  bool explicit_off = false;
  if (!is_null(arg)) {
    auto c = m.constant(arg);
    if (!c || !((c->kind == Value::Kind::Bool && !c->b) || (c->kind == Value::Kind::Int && c->i == 0))) return;
    explicit_off = true;
  } else {
    // set_to_none defaults to True since PyTorch 2.0.
    if (!kw.complete || !(gu::target_torch(ctx) < TorchVersion{2, 0})) return;
  }
  std::string msg = explicit_off ? "`zero_grad(set_to_none=False)`"
                                 : "`zero_grad()` (on PyTorch " + gu::target_torch(ctx).str() +
                                       ", the target-torch-version, `set_to_none` defaults to False)";
  Diagnostic* d = ctx.report_in_hot_context(
      "GU011", call, msg + " fills every gradient with zeros each step instead of setting it to None");
  if (!d) return;
  d->facts.push_back({"target_torch", gu::target_torch(ctx).str()});
  Fix fix{"Drop the gradients instead: `set_to_none=True`", Applicability::Safe, {}};
  // Explicit False may be load-bearing (code that reads `.grad` after zeroing).
  if (explicit_off) fix.applicability = Applicability::Unsafe;
  Node positional = m.argument(call, 0, "");
  if (explicit_off && is_null(kw.find("set_to_none")) && !is_null(positional))
    fix.edits.push_back(Edit{range(positional), "True"});
  else
    fix.edits.push_back(set_keyword(ctx, call, "set_to_none", "True"));
  d->fix = fix;
  gu::attach_speedup(ctx, *d);
}

}  // namespace stoker::python::rules
