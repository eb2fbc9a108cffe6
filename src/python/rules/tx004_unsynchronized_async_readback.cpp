// TX004: a non_blocking device-to-host copy read before the copy is known to be complete.
#include <algorithm>

#include "python/rules/common.h"

namespace stoker::python::rules {
namespace {

bool is_async_readback(const Context& ctx, Node call) {
  const auto& m = ctx.model();
  std::string_view meth = method_name(ctx, call);
  if (meth != "cpu" && meth != "to") return false;
  Node nb = m.keyword_arguments(call).find("non_blocking");
  auto c = m.constant(nb);
  if (!c || c->kind != Value::Kind::Bool || !c->b) return false;
  if (meth == "to" && m.device_kind(m.argument(call, 0, "device")) != SemanticModel::DeviceKind::Cpu) return false;
  return true;
}

bool is_sync_call(const Context& ctx, Node call) {
  std::string q = ctx.model().callee_name(call);
  if (q == "torch.cuda.synchronize" || q == "torch.cuda.current_stream") return q == "torch.cuda.synchronize";
  std::string_view meth = method_name(ctx, call);
  return meth == "synchronize" || meth == "wait_stream" || meth == "query";
}

// Is this use of the name a read of its values on the host?
bool is_host_read(const Context& ctx, Node use) {
  Node p = parent(use);
  auto k = kind(p);
  if (k == "attribute" && same(field(p, "object"), use)) {
    auto a = ctx.text(field(p, "attribute"));
    return a == "numpy" || a == "tolist" || a == "item" || a == "sum" || a == "mean" || a == "max" || a == "min";
  }
  if (k == "subscript" && same(field(p, "value"), use)) return true;
  if (k == "interpolation" || k == "comparison_operator" || k == "binary_operator") return true;
  if (k == "argument_list") {
    Node call = parent(p);
    std::string q = ctx.model().callee_name(call);
    return q == "builtins.print" || q == "builtins.float" || q == "builtins.int" || q == "builtins.bool" ||
           q == "builtins.list" || q == "builtins.str" || q.rfind("numpy.", 0) == 0;
  }
  return false;
}

}  // namespace

void tx004_unsynchronized_async_readback(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda() || !is_async_readback(ctx, call)) return;
  Node assign = parent(call);
  if (!is(assign, "assignment") || !same(unparen(field(assign, "right")), call)) return;
  Node target = field(assign, "left");
  if (!is(target, "identifier")) return;
  std::string_view name = ctx.text(target);
  // Scan the enclosing block (and what follows it in the function) in source order.
  Node scope = m.root();
  int f = ctx.frame().function;
  if (f >= 0) scope = field(m.functions()[f].node, "body");
  std::vector<Node> stack{scope};
  std::vector<Node> events;  // syncs and uses after the assignment, unordered
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    if (end(n) <= end(assign)) continue;
    if (is(n, "function_definition") || is(n, "class_definition") || is(n, "lambda")) continue;
    if (start(n) >= end(assign)) {
      if (is(n, "call") && is_sync_call(ctx, n)) events.push_back(n);
      if (is(n, "identifier") && ctx.text(n) == name) events.push_back(n);
    }
    for (auto c : named_children(n)) stack.push_back(c);
  }
  std::sort(events.begin(), events.end(), [](Node a, Node b) { return start(a) < start(b); });
  for (Node e : events) {
    if (is(e, "call")) return;  // synchronized first
    Node p = parent(e);
    if ((is(p, "assignment") && same(field(p, "left"), e))) return;  // rebound
    if (!is_host_read(ctx, e)) continue;
    Diagnostic& d = ctx.report("TX004", e,
                               "`" + std::string(name) +
                                   "` comes from a `non_blocking=True` copy to the host and is read before any "
                                   "synchronization: it may still hold stale data");
    d.related.push_back({ctx.file().path, range(call), "the asynchronous copy"});
    d.fix = Fix{"Synchronize (e.g. an event's `synchronize()`) before reading, or copy with `non_blocking=False`",
                Applicability::DisplayOnly, {}};
    return;
  }
}

}  // namespace stoker::python::rules
