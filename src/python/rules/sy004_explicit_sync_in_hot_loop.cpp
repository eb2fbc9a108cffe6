// SY004: explicit device synchronization inside the training loop.
#include "python/rules/common.h"

namespace stoker::python::rules {

void sy004_explicit_sync_in_hot_loop(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  std::string q = m.callee_name(call);
  std::string what;
  if (q == "torch.cuda.synchronize" || q == "torch.cuda.empty_cache" || q == "torch.accelerator.synchronize") {
    what = "`" + q + "()`";
  } else if (method_name(ctx, call) == "synchronize" && named_count(field(call, "arguments")) == 0) {
    Node recv = receiver(call);
    std::string rq = is(recv, "call") ? m.callee_name(recv) : std::string();
    std::string lower(ctx.text(recv));
    for (auto& ch : lower) ch = static_cast<char>(::tolower(ch));
    bool stream_or_event = rq.rfind("torch.cuda.", 0) == 0 || lower.find("stream") != std::string::npos ||
                           lower.find("event") != std::string::npos;
    for (const auto& v : m.values(recv))
      if (v.kind == Value::Kind::Expr && is(v.expr, "call")) {
        std::string vq = m.callee_name(v.expr);
        stream_or_event |= vq.rfind("torch.cuda.", 0) == 0;
      }
    if (!stream_or_event) return;
    what = "`" + std::string(ctx.text(field(call, "function"))) + "()`";
  } else {
    return;
  }
  Diagnostic* d = ctx.report_in_hot_context(
      "SY004", call, what + " in the training loop stalls the host until the GPU has drained its queue");
  if (!d) return;
  // Timing loops (events recorded in the same loop) measure on purpose: info.
  HotContext h = ctx.hot();
  if (h.loop >= 0) {
    for (int ci : m.calls_in_loop(h.loop))
      if (const CallSite& cs = m.calls()[ci];
          ctx.text(field(field(cs.call, "function"), "attribute")) == "record") {
        d->severity = Severity::Info;
        d->message += " (timing loop)";
        break;
      }
  }
  d->fix = Fix{"Remove it, or guard it behind a profiling flag", Applicability::DisplayOnly, {}};
}

}  // namespace stoker::python::rules
