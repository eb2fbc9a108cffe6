// GU005: evaluation forward passes (after `.eval()`) that still record the autograd graph.
#include "python/module_api.h"
#include "python/rules/gu_common.h"

namespace stoker::python::rules {

namespace {

// The module `.eval()` is called on: its receiver, through nn.Module's methods that return the
// module itself (`waveglow.cuda().eval()`, `net.to(device).half().eval()`: tacotron2's inference
// scripts). At most 4 such calls. The text of the module expression.
std::string_view evaluated_module(const Context& ctx, Node eval_call) {
  Node r = unparen(receiver(eval_call));
  for (int depth = 0; depth < 4 && is(r, "call"); ++depth) {
    Node f = unparen(field(r, "function"));
    if (!is(f, "attribute")) break;
    if (!module_move_or_cast(ctx.text(field(f, "attribute")))) break;
    r = unparen(field(f, "object"));
  }
  return ctx.text(r);
}

// `net(x)` where `net` is a plain parameter of `function` (not a method) and every call site of
// the function in this file passes a name on which its caller called `.eval()` before the call
// (ssd.pytorch's `net.eval()` then `test_net(..., net, ...)`).
bool eval_by_callers(const Context& ctx, int function, std::string_view name) {
  const auto& m = ctx.model();
  if (function < 0) return false;
  Node params = field(m.functions()[function].node, "parameters");
  int index = -1, k = 0;
  for (Node p : named_children(params)) {
    Node id = is(p, "identifier") ? p : field(p, "name");
    if (is(p, "default_parameter") || is(p, "typed_default_parameter") || is(p, "typed_parameter"))
      id = is(p, "typed_parameter") ? named_child(p, 0) : field(p, "name");
    std::string_view t = is_null(id) ? std::string_view() : ctx.text(id);
    if (k == 0 && (t == "self" || t == "cls")) return false;
    if (t == name) index = k;
    ++k;
  }
  if (index < 0) return false;
  const auto& callers = m.callers(function);
  if (callers.empty()) return false;
  for (int ci : callers) {
    const CallSite& site = m.calls()[ci];
    Node arg = unparen(m.argument(site.call, index, name));
    if (!is(arg, "identifier")) return false;
    bool evaluated = false;
    for (const auto& cs : m.calls())
      if (cs.caller == site.caller && start(cs.call) < start(site.call) && method_name(ctx, cs.call) == "eval" &&
          evaluated_module(ctx, cs.call) == ctx.text(arg))
        evaluated = true;
    if (!evaluated) return false;
  }
  return true;
}

}  // namespace

void gu005_grad_enabled_evaluation(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  Node fn = unparen(field(call, "function"));
  if (!is(fn, "identifier") && !is(fn, "attribute")) return;
  // A module: resolved as one, or the receiver of the `.eval()` call found below (a module
  // passed as a parameter may not resolve).
  // Cheap file-level filter first: no `.eval()` call anywhere, nothing to do.
  if (!m.memo("GU005:any-eval", [&] {
        for (const auto& cs : m.calls())
          if (method_name(ctx, cs.call) == "eval") return 1;
        return 0;
      }))
    return;
  HotContext h = ctx.hot();
  if (!h.hot || h.loop < 0 || h.via_call) return;
  // An evaluation loop: no backward or optimizer step in it (memoized per loop).
  if (m.memo("GU005:trains:" + std::to_string(h.loop), [&] {
        for (int ci : m.calls_in_loop(h.loop)) {
          std::string_view meth = method_name(ctx, m.calls()[ci].call);
          if (meth == "backward" || meth == "step" || meth == "zero_grad") return 1;
        }
        return 0;
      }))
    return;
  // `.eval()` on the same module earlier in this function: the first such call's offset,
  // memoized per (function, receiver text).
  std::string target(ctx.text(fn));
  int function = ctx.frame().function;
  int first_eval = m.memo("GU005:eval:" + std::to_string(function) + ":" + target, [&] {
    for (const auto& cs : m.calls())
      if (cs.caller == function && method_name(ctx, cs.call) == "eval" && evaluated_module(ctx, cs.call) == target)
        return static_cast<int>(start(cs.call));
    return -1;
  });
  if (first_eval >= 0 && static_cast<uint32_t>(first_eval) >= start(call)) return;
  if (first_eval < 0 && !(is(fn, "identifier") && m.memo("GU005:callers:" + std::to_string(function) + ":" + target, [&] {
                            return eval_by_callers(ctx, function, target) ? 1 : 0;
                          })))
    return;
  if (gu::under_no_grad(ctx, call)) return;
  // grad mode switched off by a statement earlier in the function.
  for (const auto& cs : m.calls()) {
    if (start(cs.call) >= start(call)) break;
    if (cs.caller != function) continue;
    const std::string& q = m.callee_name(cs.call);
    if (q == "torch.set_grad_enabled" || q == "torch.autograd.set_grad_enabled") return;
  }
  // A function whose callers run it under no_grad.
  if (function >= 0)
    for (int ci : m.callers(function))
      if (gu::under_no_grad(ctx, m.calls()[ci].call)) return;
  bool first = false;
  m.memo("GU005@" + std::to_string(h.loop), [&] {
    first = true;
    return 1;
  });
  if (!first) return;
  Diagnostic* d = ctx.report_in_hot_context(
      "GU005", call,
      "This evaluation forward pass (after `.eval()`) runs with autograd on: it records the graph and keeps "
      "activations alive for a backward that never comes");
  if (!d) return;
  d->fix = Fix{"Run the evaluation loop under `with torch.no_grad():` (or `torch.inference_mode()`)",
               Applicability::DisplayOnly, {}};
  gu::attach_speedup(ctx, *d);
}

}  // namespace stoker::python::rules
