// GU012: debugging and determinism switches set in a training program's code.
#include "python/rules/gu_common.h"

namespace stoker::python::rules {

namespace {

bool truthy_env(const SemanticModel& m, Node v) {
  auto c = m.constant(v);
  if (!c) return false;
  if (c->kind == Value::Kind::Str) return c->s == "1" || c->s == "true" || c->s == "True";
  if (c->kind == Value::Kind::Int) return c->i == 1;
  return c->kind == Value::Kind::Bool && c->b;
}

bool is_true(const SemanticModel& m, Node v) {
  auto c = m.constant(v);
  return c && ((c->kind == Value::Kind::Bool && c->b) || (c->kind == Value::Kind::Int && c->i != 0));
}

bool launch_blocking_key(const SemanticModel& m, Node key) {
  auto c = m.constant(key);
  return c && c->kind == Value::Kind::Str && c->s == "CUDA_LAUNCH_BLOCKING";
}

}  // namespace

void gu012_debug_env_in_training(Context& ctx, Node node) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  std::string what;
  Node at = node;
  if (is(node, "assignment")) {
    Node left = field(node, "left"), right = field(node, "right");
    if (is_null(right)) return;
    if (is(left, "subscript")) {
      if (m.qualified_name(field(left, "value")) != "os.environ") return;
      Node key = field(left, "subscript");
      if (!launch_blocking_key(m, key) || !truthy_env(m, right)) return;
      what = "`CUDA_LAUNCH_BLOCKING=1` makes every kernel launch synchronous";
    } else if (is(left, "attribute")) {
      if (m.qualified_name(left) != "torch.backends.cudnn.deterministic" || !is_true(m, right)) return;
      what = "`torch.backends.cudnn.deterministic = True` restricts cuDNN to deterministic, often slower, "
             "algorithms";
    } else {
      return;
    }
  } else if (is(node, "call")) {
    const std::string& q = m.callee_name(node);
    if (q == "torch.use_deterministic_algorithms") {
      if (!is_true(m, m.argument(node, 0, "mode"))) return;
      what = "`torch.use_deterministic_algorithms(True)` selects deterministic, often slower, kernels everywhere";
    } else if (q == "os.environ.setdefault" || q == "os.putenv") {
      if (!launch_blocking_key(m, m.argument(node, 0, "key")) || !truthy_env(m, m.argument(node, 1, "value")))
        return;
      what = "`CUDA_LAUNCH_BLOCKING=1` makes every kernel launch synchronous";
    } else {
      return;
    }
  } else {
    return;
  }
  gu::ProgramFacts f = gu::program_facts(ctx);
  if (is_null(f.train_step)) return;
  if (gu::guard_state(ctx) == 2) return;
  Diagnostic& d = ctx.report("GU012", at, what + " (set in the code of a training program)");
  d.fix = Fix{"Set it only for debugging or reproducibility runs (an environment variable or a flag), not in "
              "the training code",
              Applicability::DisplayOnly, {}};
  gu::attach_speedup(ctx, d);
}

}  // namespace stoker::python::rules
