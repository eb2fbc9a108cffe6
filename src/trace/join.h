// `stoker check --profile TRACE`: the measurement of a trace (profile.h) joined to the findings
// of a report. By source line when the trace has Python stacks (with_stack=True), else by
// pattern (the kind of host wait a rule's impact model describes). docs/cli.md,
// "Measured costs".
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/profile.h"

namespace stoker {
struct Report;
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

struct MeasuredReport {
  Profile profile;
  // Keyed by (file, index of the diagnostic in its file's result).
  std::map<std::pair<std::string, size_t>, Measured> findings;
  std::vector<Unexplained> unexplained;
  const Measured* find(const std::string& file, size_t index) const;
};

// The host kinds an impact model's pattern shows up as in a trace.
std::vector<HostKind> kinds_for_model(const std::string& model);

MeasuredReport join(Profile profile, const Report& report, const RuleRegistry& rules);

// "measured: 9.3 ms per step (84% of the step), GPU idle during it 9.1 ms (...)".
std::string measured_text(const Measured& m);
// The `measured` object of JSON and SARIF output.
nlohmann::json measured_json(const Measured& m);
// The trace's steps, busy time and unexplained idle (SARIF run properties).
nlohmann::json summary_json(const MeasuredReport& m);
// The lines that close a text report: the trace's steps and busy time, then unexplained idle.
std::vector<std::string> summary_lines(const MeasuredReport& m);

}  // namespace stoker::trace
