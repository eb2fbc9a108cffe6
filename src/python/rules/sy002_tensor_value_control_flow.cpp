// SY002: Python control flow on the value of a CUDA tensor.
#include "python/rules/common.h"

namespace stoker::python::rules {

void sy002_tensor_value_control_flow(Context& ctx, Node node) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  Node cond{};
  auto k = kind(node);
  if (k == "if_statement" || k == "elif_clause" || k == "while_statement") cond = field(node, "condition");
  else if (k == "assert_statement") cond = named_count(node) ? named_child(node, 0) : Node{};
  else if (k == "conditional_expression" && named_count(node) == 3) cond = named_child(node, 1);
  if (is_null(cond)) return;
  Node c = unparen(cond);
  if (is(c, "not_operator")) c = unparen(field(c, "argument"));
  bool tensor = m.is_cuda(c);
  if (!tensor && is(c, "boolean_operator"))
    tensor = m.is_cuda(field(c, "left")) || m.is_cuda(field(c, "right"));
  if (!tensor) return;
  // The condition's own statement (a while loop's condition runs per iteration of that loop,
  // which the walk frame does not include yet: only report it when the loop sits in a hot context).
  Diagnostic* d = ctx.report_in_hot_context(
      "SY002", cond, "Branching on the value of a CUDA tensor copies it to the host and waits for the GPU");
  if (d)
    d->fix = Fix{"Use `torch.where`/masking, `torch._assert_async`, or check every N steps",
                 Applicability::DisplayOnly, {}};
}

}  // namespace stoker::python::rules
