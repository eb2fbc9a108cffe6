#include "python/rules/dd_common.h"

namespace stoker::python::rules {

namespace {
bool is_ddp_name(std::string_view q) {
  return q == "torch.nn.parallel.DistributedDataParallel" ||
         q == "torch.nn.parallel.distributed.DistributedDataParallel";
}
bool skips_sync(std::string_view t) {
  return t.find("no_sync") != std::string_view::npos || t.find("no_backward_sync") != std::string_view::npos ||
         t.find(".accumulate(") != std::string_view::npos;
}
}  // namespace

bool is_ddp_constructor(const SemanticModel& m, Node call) { return is(call, "call") && is_ddp_name(m.callee_name(call)); }

Node ddp_construction(const SemanticModel& m, Node expr) {
  expr = unparen(expr);
  if (is(expr, "call")) return is_ddp_constructor(m, expr) ? expr : Node{};
  if (!is(expr, "identifier") && !is(expr, "attribute")) return Node{};
  for (const auto& v : m.values(expr))
    if (v.kind == Value::Kind::Expr && is_ddp_constructor(m, v.expr)) return v.expr;
  return Node{};
}

bool uses_distributed(const SemanticModel& m) {
  return m.memo("dd:uses_distributed", [&] {
    for (const auto& cs : m.calls()) {
      const std::string& q = m.callee_name(cs.call);
      if (q.rfind("torch.distributed.", 0) == 0 || is_ddp_name(q)) return 1;
    }
    return 0;
  }) != 0;
}

Node enclosing_statement(Node n) {
  for (Node p = parent(n); !is_null(p); n = p, p = parent(p))
    if (is(p, "block") || is(p, "module")) return n;
  return Node{};
}

Node enclosing_no_sync(const Context& ctx, Node n, Node limit) {
  const auto& m = ctx.model();
  for (Node p = parent(n); !is_null(p); p = parent(p)) {
    if (!is_null(limit) && same(p, limit)) break;
    if (is(p, "function_definition")) break;
    if (!is(p, "with_statement")) continue;
    Node clause{};
    for (auto c : named_children(p))
      if (is(c, "with_clause")) clause = c;
    if (is_null(clause)) continue;
    for (auto item : named_children(clause)) {
      Node value = field(item, "value");
      if (is_null(value)) value = item;
      if (skips_sync(ctx.text(value))) return p;
      Node v = unparen(value);
      if (is(v, "identifier"))
        for (const auto& val : m.values(v))
          if (val.kind == Value::Kind::Expr && skips_sync(ctx.text(val.expr))) return p;
    }
  }
  return Node{};
}

bool is_collective(std::string_view q) {
  static constexpr std::string_view names[] = {
      "torch.distributed.all_reduce",     "torch.distributed.reduce",
      "torch.distributed.all_gather",     "torch.distributed.all_gather_into_tensor",
      "torch.distributed.reduce_scatter", "torch.distributed.reduce_scatter_tensor",
      "torch.distributed.broadcast",      "torch.distributed.all_gather_object"};
  for (auto n : names)
    if (q == n) return true;
  return false;
}

}  // namespace stoker::python::rules
