// `stoker check --profile TRACE`: the measurement of a trace (profile.h) joined to the findings
// of a report. By source line when the trace has Python stacks (with_stack=True), else by
// pattern (the kind of host wait a rule's impact model describes). docs/cli.md,
// "Measured costs".
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/profile.h"

namespace stoker {
struct Report;
struct Settings;
class RuleRegistry;
}  // namespace stoker

namespace stoker::trace {

// What the trace measured for one finding. Times are per step (the mean over the steps).
struct Measured {
  double host_ms = 0;        // host time in the joined events
  double idle_ms = 0;        // GPU idle time during them (0 when the trace has no GPU events)
  double step_ms = 0;        // the measured step
  bool gpu = true;           // false: the trace has no GPU activity, idle is not measured
  std::string match;         // "source line", "function", "pattern"
  std::string function;      // "function": the function of the Python frame
  std::vector<std::string> events;  // the joined host events' names
  size_t shared = 0;         // other findings joined to the same events
  bool notebook = false;     // the finding is in a notebook (its cells named by IPython's file names)
  double host_fraction() const { return step_ms > 0 ? host_ms / step_ms : 0; }
  double idle_fraction() const { return step_ms > 0 ? idle_ms / step_ms : 0; }
};

// Idle time no finding explains, by what the host ran then.
struct Unexplained {
  std::string kind;  // HostKind name, "other", or "none" (no host op recorded)
  std::string name;  // "Optimizer.step#Shampoo.step"
  double idle_ms = 0, host_ms = 0, step_ms = 0;
  std::string why;   // why it is not joined ("no finding of this kind", "outside the files checked", ...)
};

// One host-event group of the profile (Profile::causes) and the findings it was joined to.
struct JoinedCause {
  HostKind kind = HostKind::Other;
  std::string name;
  double idle_ms = 0, host_ms = 0;  // per step
  std::vector<std::pair<std::string, size_t>> findings;  // (file, index of the diagnostic)
  bool by_pattern = false;  // joined by pattern (no Python stack to say where)
};

// One part of a measured loop's idle time: what the host ran then, and the findings that
// explain it (none: unexplained, with why).
struct IdlePart {
  std::string kind;  // HostKind name, "other" (a host op no rule describes) or "none" (no host op)
  std::string name;
  double ms = 0;     // GPU idle per step (without GPU events: host time in the wait)
  std::vector<std::string> findings;  // "DL001 line 29"
  std::string why;
};

// The measured step of the hot loop whose iterations the trace's steps are, and its estimate
// after the measurement replaced the assumptions (apply_to_estimates).
struct LoopMeasured {
  std::string file;
  size_t loop = 0;         // index into the file's AnalysisResult::loops
  std::string label;       // "hot loop train.py:31"
  size_t steps = 0;
  double step_ms = 0;      // the mean step
  double gpu_ms = 0;       // GPU busy per step; without GPU events, the step less its host waits
  bool gpu = true;         // false: the trace has no GPU events
  std::vector<IdlePart> idle;  // most first
  double busy_now_lo = 0, busy_now_hi = 0, busy_after_lo = 0, busy_after_hi = 0;  // the estimate
  double busy_fraction() const { return step_ms > 0 ? gpu_ms / step_ms : 0; }
  double idle_fraction() const { return step_ms > 0 ? 1 - gpu_ms / step_ms : 0; }
};

struct MeasuredReport {
  Profile profile;
  // Keyed by (file, index of the diagnostic in its file's result).
  std::map<std::pair<std::string, size_t>, Measured> findings;
  std::vector<Unexplained> unexplained;
  std::vector<JoinedCause> causes;  // Profile::causes, in order, with the findings joined to each
  std::vector<LoopMeasured> loops;  // the loop the measurement went into (at most one)
  std::string loop_note;            // why no loop took the measurement ("" when one did)
  const Measured* find(const std::string& file, size_t index) const;
  // The measured loop a finding belongs to, or null.
  const LoopMeasured* loop_of(const std::string& file, size_t index, const Report& report) const;
};

// The host kinds an impact model's pattern shows up as in a trace.
std::vector<HostKind> kinds_for_model(const std::string& model);

MeasuredReport join(Profile profile, const Report& report, const RuleRegistry& rules);

// The measured step into the estimate (core/impact.h, MeasuredStep "full"): picks the hot loop
// whose findings the trace's host waits were joined to (the one with the most joined time; by
// pattern, only when they are all in one loop), composes it again with the measured step, GPU
// busy time and joined waits (apply_measurement), and records it in `m.loops`.
void apply_to_estimates(MeasuredReport& m, Report& report,
                        const std::function<Settings(const std::string&)>& settings_for);

// A measured loop as JSON (`measured_loop` of JSON findings, SARIF run properties).
nlohmann::json loop_json(const LoopMeasured& l);

// "measured: 9.3 ms per step (84% of the step), GPU idle during it 9.1 ms (...)".
std::string measured_text(const Measured& m);
// The `measured` object of JSON and SARIF output.
nlohmann::json measured_json(const Measured& m);
// The trace's steps, busy time and unexplained idle (SARIF run properties).
nlohmann::json summary_json(const MeasuredReport& m);
// The lines that close a text report: the trace's steps and busy time, then unexplained idle.
std::vector<std::string> summary_lines(const MeasuredReport& m);

}  // namespace stoker::trace
