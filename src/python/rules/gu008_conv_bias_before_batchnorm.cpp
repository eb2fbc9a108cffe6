// GU008: a convolution with a bias directly followed by batch norm (which subtracts the mean,
// so the bias is computed, stored and differentiated for nothing).
#include "python/rules/gu_common.h"

namespace stoker::python::rules {

namespace {

// The convolution construction an expression evaluates to (`nn.Conv2d(...)`, a name or
// `self.conv` bound to one), with its dimensionality ('1', '2', '3'); null when not one.
Node conv_construction(const SemanticModel& m, Node e, char& dim) {
  e = unparen(e);
  auto is_conv = [&](Node c) {
    if (!is(c, "call")) return false;
    const std::string& q = m.callee_name(c);
    for (const char* p : {"torch.nn.Conv", "torch.nn.ConvTranspose", "torch.nn.LazyConv", "torch.nn.LazyConvTranspose"})
      if (q.rfind(p, 0) == 0 && q.size() == std::string_view(p).size() + 2 && q.back() == 'd') {
        dim = q[q.size() - 2];
        return true;
      }
    return false;
  };
  if (is_conv(e)) return e;
  Node found{};
  auto values = m.values(e);
  if (values.empty()) return Node{};
  for (const auto& v : values) {
    if (v.kind != Value::Kind::Expr || !is_conv(v.expr)) return Node{};
    if (!is_null(found) && !same(found, v.expr)) return Node{};
    found = v.expr;
  }
  return found;
}

bool is_batchnorm(const SemanticModel& m, Node e, char dim) {
  e = unparen(e);
  auto check = [&](Node c) {
    if (!is(c, "call")) return false;
    const std::string& q = m.callee_name(c);
    if (q == "torch.nn.SyncBatchNorm") return true;
    for (const char* p : {"torch.nn.BatchNorm", "torch.nn.LazyBatchNorm"})
      if (q.rfind(p, 0) == 0 && q.size() == std::string_view(p).size() + 2 && q[q.size() - 2] == dim) return true;
    return false;
  };
  if (check(e)) return true;
  auto values = m.values(e);
  if (values.empty()) return false;
  for (const auto& v : values)
    if (v.kind != Value::Kind::Expr || !check(v.expr)) return false;
  return true;
}

void report(Context& ctx, Node conv, Node site, const char* site_message) {
  const auto& m = ctx.model();
  // bias defaults to True; silent when it is off or cannot be resolved.
  int state = bool_argument_state(ctx, conv, 7, "bias");  // 1 missing, 2 false, 0 true/unknown
  if (state == 2) return;
  if (state == 0) {
    Node bias = m.keyword_arguments(conv).find("bias");
    if (is_null(bias)) bias = m.argument(conv, 7, "");
    auto c = is_null(bias) ? std::nullopt : m.constant(bias);
    if (!c || !(c->kind == Value::Kind::Bool && c->b)) return;
  }
  bool first = false;
  m.memo("GU008@" + std::to_string(start(conv)), [&] {
    first = true;
    return 1;
  });
  if (!first) return;
  Diagnostic& d = ctx.report("GU008", field(conv, "function"),
                             "This convolution's bias is followed directly by batch norm, which removes it: the "
                             "bias is computed and trained for nothing");
  d.related.push_back({ctx.file().path, range(site), site_message});
  Fix fix{"Pass `bias=False` to the convolution", Applicability::Unsafe, {}};
  // Unsafe: the checkpoint loses the `.bias` entry (strict state_dict loading fails).
  fix.edits.push_back(set_keyword(ctx, conv, "bias", "False"));
  d.fix = fix;
  gu::attach_speedup(ctx, d);
}

}  // namespace

void gu008_conv_bias_before_batchnorm(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  const std::string& q = m.callee_name(call);
  char dim = 0;
  if (q == "torch.nn.Sequential") {
    std::vector<Node> args;
    for (auto a : named_children(field(call, "arguments")))
      if (!is(a, "comment")) args.push_back(a);
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      if (is(args[i], "keyword_argument") || is(args[i], "list_splat") || is(args[i], "dictionary_splat")) break;
      Node conv = conv_construction(m, args[i], dim);
      if (!is_null(conv) && is_batchnorm(m, args[i + 1], dim)) report(ctx, conv, args[i + 1], "followed by batch norm here");
    }
    return;
  }
  // A list of layers (`layers += [nn.Conv2d(...), nn.BatchNorm2d(c), nn.ReLU()]`, later
  // `nn.Sequential(*layers)` or a ModuleList applied in order): a batch norm constructed right
  // after a convolution in the same list literal, unless a guard that resolves False (a
  // `batch_norm=False` parameter) keeps the list from being built.
  if (q.rfind("torch.nn.BatchNorm", 0) == 0 || q.rfind("torch.nn.LazyBatchNorm", 0) == 0 || q == "torch.nn.SyncBatchNorm") {
    Node list = parent(call);
    if (!is(list, "list")) return;
    Node prev{};
    for (Node e : named_children(list)) {
      if (same(e, call)) break;
      if (!is(e, "comment")) prev = e;
    }
    if (is_null(prev)) return;
    Node conv = conv_construction(m, prev, dim);
    if (is_null(conv) || !is_batchnorm(m, call, dim)) return;
    if (gu::guard_state(ctx) == 2) return;
    report(ctx, conv, call, "followed by batch norm in this list of layers");
    return;
  }
  // A forward: `self.bn(self.conv(x))` or `y = self.conv(x)` then `self.bn(y)`.
  Node fn = unparen(field(call, "function"));
  Node args = field(call, "arguments");
  if (named_count(args) != 1 || (!is(fn, "attribute") && !is(fn, "identifier"))) return;
  Node inner = unparen(named_child(args, 0));
  Node inner_call = is(inner, "call") ? inner : Node{};
  if (is_null(inner_call) && is(inner, "identifier")) {
    auto values = m.values(inner);
    if (values.size() == 1 && values[0].kind == Value::Kind::Expr && is(values[0].expr, "call"))
      inner_call = values[0].expr;
  }
  if (is_null(inner_call) || named_count(field(inner_call, "arguments")) != 1) return;
  Node inner_fn = unparen(field(inner_call, "function"));
  if (!is(inner_fn, "attribute") && !is(inner_fn, "identifier")) return;
  Node conv = conv_construction(m, inner_fn, dim);
  if (is_null(conv) || !is_batchnorm(m, fn, dim)) return;
  report(ctx, conv, inner_call, "applied here; its output goes straight into batch norm");
}

}  // namespace stoker::python::rules
