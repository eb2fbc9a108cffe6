// GU006: autograd anomaly detection, NVTX emission or a profiler left on around training.
#include "python/rules/gu_common.h"

namespace stoker::python::rules {

namespace {
// The `with` statement whose item is this call, or null.
Node with_of(Node call) {
  Node p = parent(call);
  if (is(p, "as_pattern")) p = parent(p);
  if (!is(p, "with_item")) return Node{};
  p = parent(p);
  if (is(p, "with_clause")) p = parent(p);
  return is(p, "with_statement") ? p : Node{};
}
}  // namespace

void gu006_debug_api_in_training(Context& ctx, Node call) {
  const auto& m = ctx.model();
  if (!m.uses_cuda()) return;
  const std::string& q = m.callee_name(call);
  bool anomaly = q == "torch.autograd.set_detect_anomaly" || q == "torch.autograd.detect_anomaly" ||
                 q == "torch.autograd.anomaly_mode.set_detect_anomaly" ||
                 q == "torch.autograd.anomaly_mode.detect_anomaly";
  bool nvtx = q == "torch.autograd.profiler.emit_nvtx" || q == "torch.autograd.emit_nvtx";
  bool profiler = q == "torch.profiler.profile" || q == "torch.autograd.profiler.profile";
  if (!anomaly && !nvtx && !profiler) return;
  if (q.find("set_detect_anomaly") != std::string::npos) {
    auto c = m.constant(m.argument(call, 0, "mode"));
    if (!c || c->kind != Value::Kind::Bool || !c->b) return;
  } else if (q.find("detect_anomaly") != std::string::npos || nvtx || profiler) {
    // A context manager or decorator; `enabled=False` turns it off.
    Node en = m.keyword_arguments(call).find("enabled");
    if (!is_null(en)) {
      auto c = m.constant(en);
      if (!c || c->kind != Value::Kind::Bool || !c->b) return;
    }
  }
  gu::ProgramFacts f = gu::program_facts(ctx);
  if (is_null(f.train_step)) return;
  if (profiler) {
    // A scheduled profiler records a bounded window of steps on purpose; an unscheduled one
    // records every step of the training loop it wraps.
    if (!m.keyword_arguments(call).complete || !is_null(m.keyword_arguments(call).find("schedule"))) return;
    Node w = with_of(call);
    if (is_null(w)) return;
    // The training step inside the block, or inside a function the block calls.
    bool wraps = contains(w, f.train_step);
    for (const auto& cs : m.calls()) {
      if (wraps) break;
      if (!contains(w, cs.call)) continue;
      for (int fi : m.callees(cs.call))
        if (contains(m.functions()[fi].node, f.train_step)) wraps = true;
    }
    if (!wraps) return;
  }
  int guards = gu::guard_state(ctx);
  if (guards == 2) return;
  std::string what = "`" + std::string(ctx.text(field(call, "function"))) + "(...)`";
  std::string why = anomaly ? "anomaly detection re-checks every backward op and keeps forward traces"
                    : nvtx  ? "NVTX ranges are emitted around every autograd op"
                            : "the profiler records every op of every step";
  Diagnostic& d = ctx.report("GU006", call, what + " is on in a training program: " + why);
  if (guards == 1) {
    d.severity = Severity::Info;
    d.message += " (behind a configuration flag)";
  }
  d.fix = Fix{"Remove it, or enable it only behind a debugging flag", Applicability::DisplayOnly, {}};
  gu::attach_speedup(ctx, d);
}

}  // namespace stoker::python::rules
