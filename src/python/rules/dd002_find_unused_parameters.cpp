// DD002: DDP told to search the autograd graph for unused parameters after every forward.
#include "python/rules/dd_common.h"

namespace stoker::python::rules {

namespace {
std::string_view last_part(std::string_view q) {
  auto dot = q.rfind('.');
  return dot == std::string_view::npos ? q : q.substr(dot + 1);
}
bool is_lightning(std::string_view q) {
  return q.rfind("lightning.", 0) == 0 || q.rfind("pytorch_lightning.", 0) == 0;
}
}  // namespace

void dd002_find_unused_parameters(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  const std::string& q = m.callee_name(call);
  bool ddp = is_ddp_constructor(m, call);
  bool lightning_strategy = is_lightning(q) && last_part(q) == "DDPStrategy";
  if (ddp || lightning_strategy) {
    Node v = m.keyword_arguments(call).find("find_unused_parameters");
    if (is_null(v)) return;
    auto c = m.constant(v);
    if (!c || c->kind != Value::Kind::Bool || !c->b) return;
    Diagnostic& d = ctx.report(
        "DD002", v,
        std::string(ddp ? "`DistributedDataParallel`" : "`DDPStrategy`") +
            " with `find_unused_parameters=True` traverses the autograd graph after every forward to find "
            "parameters that get no gradient; when every parameter is used, set it to `False`");
    d.fix = Fix{"Set `find_unused_parameters=False` (only if every parameter receives a gradient on every step)",
                Applicability::Unsafe, {}};
    // Edit where the value is written as a literal at the call; a flag or a dict entry is
    // configuration the user chose elsewhere.
    if (contains(call, v) && is(unparen(v), "true")) d.fix->edits.push_back(Edit{range(unparen(v)), "False"});
    return;
  }
  if (is_lightning(q) && last_part(q) == "Trainer") {
    Node v = m.keyword_arguments(call).find("strategy");
    if (is_null(v)) return;
    auto c = m.constant(v);
    if (!c || c->kind != Value::Kind::Str || c->s != "ddp_find_unused_parameters_true") return;
    Diagnostic& d = ctx.report("DD002", v,
                               "`strategy=\"ddp_find_unused_parameters_true\"` makes DDP traverse the autograd graph "
                               "after every forward to find parameters that get no gradient; when every parameter is "
                               "used, use `strategy=\"ddp\"`");
    d.fix = Fix{"Use `strategy=\"ddp\"` (only if every parameter receives a gradient on every step)",
                Applicability::Unsafe, {}};
    if (contains(call, v) && is(unparen(v), "string")) d.fix->edits.push_back(Edit{range(unparen(v)), "\"ddp\""});
  }
}

}  // namespace stoker::python::rules
