// SY001: reading a CUDA tensor's value on the host inside the training loop.
#include <algorithm>
#include <cctype>
#include <string>

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

// An instance of a class of this file (by its type, or a name every binding of which constructs
// one, also as an element of `a, b = [Meter() for _ in range(2)]`): the class index, else -1.
int instance_class(const SemanticModel& m, Node v) {
  v = unparen(v);
  AbstractType t = m.types().type_of(v);
  if (t.kind == AbstractType::Kind::Object && t.klass >= 0) return t.klass;
  if (!is(v, "identifier")) return -1;
  auto bindings = m.lookup(m.text(v), start(v));
  if (bindings.empty() || bindings.size() > SemanticModel::kMaxCandidates) return -1;
  int klass = -1;
  for (const Binding* b : bindings) {
    if (b->kind != Binding::Kind::Assign) return -1;
    Node c = unparen(b->value);
    if (is(c, "list_comprehension")) c = unparen(field(c, "body"));
    else if (b->unpack_index >= 0) return -1;
    if (!is(c, "call") || !is(unparen(field(c, "function")), "identifier")) return -1;
    std::string_view name = m.text(unparen(field(c, "function")));
    int found = -1;
    for (size_t k = 0; k < m.classes().size(); ++k)
      if (m.classes()[k].name == name) found = static_cast<int>(k);
    if (found < 0 || (klass >= 0 && found != klass)) return -1;
    klass = found;
  }
  return klass;
}

// `"{top1.avg:.3f}".format(top1=top1)`: the field reads an attribute of an instance of a class
// here that its methods store (`self.avg = ...`), and this function hands that instance, written
// the same way, a CUDA value through one of the class's methods (`top1.update(acc1[0], n)`): the
// attribute holds the tensor (member types per instance, set AI mdistiller's AverageMeter).
bool formats_fed_member(const SemanticModel& m, Node call, std::string_view format) {
  Node args = field(call, "arguments");
  int auto_index = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '{') continue;
    if (i + 1 < format.size() && format[i + 1] == '{') {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < format.size() && format[j] != '.' && format[j] != '[' && format[j] != '}' && format[j] != ':' &&
           format[j] != '!')
      ++j;
    std::string_view name = format.substr(i + 1, j - i - 1);
    const bool automatic = name.empty();
    const int index = automatic ? auto_index++ : -1;
    if (j >= format.size() || format[j] != '.') continue;
    size_t k = j + 1;
    while (k < format.size() && (std::isalnum(static_cast<unsigned char>(format[k])) || format[k] == '_')) ++k;
    std::string_view attr = format.substr(j + 1, k - j - 1);
    if (attr.empty()) continue;
    // The argument the field names: a keyword, or a positional one by its index.
    Node v{};
    int position = 0;
    const bool numbered = !automatic && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
    for (Node a : named_children(args)) {
      if (is(a, "comment") || is(a, "list_splat") || is(a, "dictionary_splat")) continue;
      if (is(a, "keyword_argument")) {
        if (!automatic && !numbered && m.text(field(a, "name")) == name) v = field(a, "value");
        continue;
      }
      if ((automatic && position == index) || (numbered && std::to_string(position) == name)) v = a;
      ++position;
    }
    v = unparen(v);
    if (is_null(v) || (!is(v, "identifier") && !is(v, "subscript"))) continue;
    int klass = instance_class(m, v);
    if (klass < 0) continue;
    const Class& c = m.classes()[static_cast<size_t>(klass)];
    // The class stores the attribute (`self.avg = `, `self.sum += `).
    std::string_view body = m.text(c.node);
    bool stored = false;
    const std::string self_attr = "self." + std::string(attr);
    for (size_t p = body.find(self_attr); p != std::string_view::npos && !stored; p = body.find(self_attr, p + 1)) {
      size_t q = p + self_attr.size();
      if (q < body.size() && (std::isalnum(static_cast<unsigned char>(body[q])) || body[q] == '_')) continue;
      while (q < body.size() && body[q] == ' ') ++q;
      const bool store = q + 1 < body.size() &&
                         ((std::string_view("+-*/").find(body[q]) != std::string_view::npos && body[q + 1] == '=') ||
                          (body[q] == '=' && body[q + 1] != '='));
      if (!store) continue;
      // That may hold a CUDA value as the class's methods read it (not `self.count += n` of
      // integers, a Python int; not `self.last = val.cpu()`).
      const uint32_t at = start(c.node) + static_cast<uint32_t>(p);
      Node target = ts_node_descendant_for_byte_range(c.node, at, at + static_cast<uint32_t>(self_attr.size()));
      stored = is(target, "attribute") && m.is_cuda(target);
    }
    if (!stored) continue;
    const std::string_view written = m.text(v);
    const int f = m.function_at(start(v));
    for (const auto& cs : m.calls()) {
      if (cs.caller != f) continue;
      Node fn = unparen(field(cs.call, "function"));
      if (!is(fn, "attribute") || m.text(unparen(field(fn, "object"))) != written) continue;
      if (!c.methods.count(std::string(m.text(field(fn, "attribute"))))) continue;
      for (Node a : named_children(field(cs.call, "arguments"))) {
        Node x = is(a, "keyword_argument") ? field(a, "value") : a;
        if (is(x, "comment") || is(x, "list_splat") || is(x, "dictionary_splat")) continue;
        if (m.is_cuda(x) && !m.is_module(x)) return true;
      }
    }
  }
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
    std::string format;
    if (!any && string_literal_value(receiver(node), ctx.model().src(), format)) any = formats_fed_member(m, node, format);
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
