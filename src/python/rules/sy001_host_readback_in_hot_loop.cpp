// SY001: reading a CUDA tensor's value on the host inside the training loop.
#include "python/rules/common.h"
#include "python/types.h"

namespace stoker::python::rules {

namespace {

// Functions of the math module that read their first argument as a Python float.
bool float_math_function(std::string_view q) {
  static const char* const kNames[] = {"isnan", "isinf", "isfinite", "isclose", "sqrt", "exp", "expm1", "log",
                                       "log2", "log10", "log1p", "fabs", "pow", "copysign", "fmod", "sin",
                                       "cos", "tan", "asin", "acos", "atan", "tanh", "sinh", "cosh", "erf", "erfc",
                                       "gamma", "lgamma", "degrees", "radians", "frexp", "modf", "ldexp"};
  if (q.substr(0, 5) != "math.") return false;
  for (const char* n : kNames)
    if (q.substr(5) == n) return true;
  return false;
}

}  // namespace

void sy001_host_readback_in_hot_loop(Context& ctx, Node node) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  auto k = kind(node);
  if (k == "interpolation") {
    Node expr = named_count(node) ? named_child(node, 0) : Node{};
    if (!is_null(expr) && m.is_cuda(expr)) {
      Diagnostic* d = ctx.report_in_hot_context(
          "SY001", node, "Formatting a CUDA tensor in an f-string copies it to the host and waits for the GPU");
      if (d) d->fix = Fix{"Accumulate on the device and format every N steps", Applicability::DisplayOnly, {}};
    }
    return;
  }
  if (k == "binary_operator") {
    // The format may be built from literals: `("%11s" * 2 + "%11.4g" * 5) % (...)`.
    if (ctx.text(field(node, "operator")) != "%" || !m.is_str_expr(field(node, "left"))) return;
    if (!m.is_cuda(field(node, "right"))) return;
    Diagnostic* d = ctx.report_in_hot_context("SY001", node,
                                              "`%`-formatting a CUDA tensor copies it to the host and waits for the GPU");
    if (d) d->fix = Fix{"Accumulate on the device and format every N steps", Applicability::DisplayOnly, {}};
    return;
  }
  if (k != "call") return;
  std::string_view meth = method_name(ctx, node);
  std::string q = m.callee_name(node);
  std::string what;
  // `model.cpu()`, `clap.to("cpu")`: a module moved back to the host, not a tensor read.
  auto module_moved = [&] {
    Node r = receiver(node);
    return m.types().type_of(r).kind == AbstractType::Kind::Module || m.is_module(r);
  };
  if (meth == "item" || meth == "tolist" || meth == "numpy" || meth == "cpu") {
    if (!m.is_cuda(receiver(node))) return;
    // `t.numpy()` raises on a CUDA tensor (unless `force=True`, PyTorch 1.13+, which copies): where
    // the line runs, the tensor is on the CPU (a CPU fallback path), so nothing is read back.
    if (meth == "numpy") {
      Node force = m.argument(node, 0, "force");
      auto c = is_null(force) ? std::nullopt : m.constant(force);
      if (!c || c->kind != Value::Kind::Bool || !c->b) return;
    }
    if (meth == "cpu" && module_moved()) return;
    what = "`." + std::string(meth) + "()`";
  } else if (meth == "to") {
    if (m.device_kind(m.argument(node, 0, "device")) != SemanticModel::DeviceKind::Cpu) return;
    if (!m.is_cuda(receiver(node)) || module_moved()) return;
    what = "`.to(\"cpu\")`";
  } else if (meth == "format" && is(receiver(node), "string")) {
    bool any = false;
    for (auto a : named_children(field(node, "arguments"))) any |= m.is_cuda(is(a, "keyword_argument") ? field(a, "value") : a);
    if (!any) return;
    what = "`str.format` of a CUDA tensor";
  } else if (q == "builtins.float" || q == "builtins.int" || q == "builtins.bool" || q == "builtins.print") {
    bool any = false;
    for (auto a : named_children(field(node, "arguments")))
      if (!is(a, "keyword_argument")) any |= m.is_cuda(a);
    if (!any) return;
    what = "`" + q.substr(9) + "(...)` of a CUDA tensor";
  } else if (float_math_function(q)) {
    // `math.isnan(loss)`: the math module converts its argument with `float()` (Tensor.__float__).
    Node a = m.argument(node, 0, "");
    if (is_null(a) || is(a, "keyword_argument") || !m.is_cuda(a)) return;
    what = "`" + q + "(...)` of a CUDA tensor (an implicit `float()`)";
  } else {
    return;
  }
  Diagnostic* d = ctx.report_in_hot_context(
      "SY001", node, what + " copies the value to the host and waits for the GPU to drain its queue");
  if (!d) return;
  // `total += loss.item()`: accumulate on the device instead (the sum becomes a tensor).
  Node p = parent(node);
  if (meth == "item" && is(p, "augmented_assignment") && same(unparen(field(p, "right")), node) &&
      ctx.text(field(p, "operator")) == "+=" && is(field(p, "left"), "identifier")) {
    Node fn = field(node, "function");
    Node attr = field(fn, "attribute");
    d->fix = Fix{"Accumulate on the device: `.detach()` instead of `.item()`, read the total once",
                 Applicability::Unsafe,
                 {Edit{{start(attr), end(node)}, "detach()"}}};
  } else {
    d->fix = Fix{"Keep the value on the device; read it every N steps or after the loop", Applicability::DisplayOnly, {}};
  }
}

}  // namespace stoker::python::rules
