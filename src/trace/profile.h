// Measurement of a trace (trace.h): the steps, GPU busy and idle per step, and the idle time
// attributed to the host events running then. docs/cli.md ("Measured costs").
#pragma once

#include <string>
#include <vector>

#include "trace/trace.h"

namespace stoker::trace {

struct StepMeasure {
  std::string name;
  double start_us = 0, dur_us = 0;
  double busy_us = 0;  // union of GPU activity (all streams, all devices) inside the window
};

// Host events of one kind at one call stack, over all steps.
struct Cause {
  HostKind kind = HostKind::Other;
  std::string name;        // the event name with the most idle time ("aten::item")
  int32_t stack = -1;      // Trace::stacks index; -1: no stack
  double host_us = 0;      // time the host spent in these events (inside the steps)
  double idle_us = 0;      // GPU idle time attributed to them
  size_t events = 0;
};

// The timeline of one step (the HTML report draws it beside the estimate): when the GPU was
// busy, and each idle piece with the host event it was attributed to. Times in microseconds
// from the step's start.
struct TimelinePiece {
  double start = 0, end = 0;
  int kind = 0;           // a HostKind; kHostKinds: no host op recorded then
  std::string name;       // the host event ("aten::item"); empty with no host op
};
struct Timeline {
  std::string step;       // "ProfilerStep#12"
  size_t index = 0;       // into Profile::steps
  double dur_us = 0, busy_us = 0;
  std::vector<Interval> busy;       // merged GPU activity, clipped to the step
  std::vector<TimelinePiece> idle;  // in time order
};

struct Profile {
  std::string path;
  std::string step_source;  // "ProfilerStep", "DataLoader", "Optimizer.step", "trace"
  std::vector<StepMeasure> steps;
  std::vector<Cause> causes;      // kinds other than Other; most idle first
  std::vector<Cause> others;      // idle left over, by the host op running then (kind Other)
  double unattributed_idle_us = 0;  // idle time with no host op recorded at all
  std::vector<std::vector<Frame>> stacks;
  bool has_gpu = false;
  bool has_stacks = false;
  size_t events = 0;
  // The representative step: the one of median duration (the shorter of the two middle ones).
  Timeline timeline;

  double total_us() const;
  double busy_us() const;
  double mean_step_ms() const { return steps.empty() ? 0 : total_us() / steps.size() / 1000; }
  double busy_fraction() const { return total_us() > 0 ? busy_us() / total_us() : 0; }
};

// Steps: ProfilerStep#N windows; without them, from one DataLoader __next__ start to the next
// (the hot loop's iterations), else from one optimizer step to the next, else the whole trace.
Profile measure(const Trace& t);

// The whole measurement as JSON text (`stoker profile --output-format json`).
std::string profile_json(const Profile& p);
// A human summary (`stoker profile`).
std::string profile_text(const Profile& p);

}  // namespace stoker::trace
