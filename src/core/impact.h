// The GPU-utilization impact model: how many percentage points of GPU busy time a fix would
// recover. Plain functions over a HardwareProfile (a built-in table, each number with its
// source in impact.cpp) and a Workload (what the analysis resolved, the rest from documented
// defaults). docs/impact-model.md states every formula and default.
//
// Facts a front end may attach to a Diagnostic (Diagnostic::facts, key -> decimal string);
// anything missing comes from the defaults below:
//   batch_size       resolved batch size of the loader (DL*, BS001, TX001)
//   num_workers      resolved current worker count of the loader (DL001: 0, DL003: W)
//   amortize_every   N when the statement runs once every N steps (SY*, CU*)
//   copies_per_step  copies of this kind per step (TX001, CU001, CU005)
//   copy_bytes       bytes of one copy when known (TX*, CU*)
//   sample_bytes     bytes of one sample (used with batch_size when copy_bytes is unknown)
//   syncs_per_step   syncs of this kind per step (SY*, CU003)
//   allocs_per_step  allocation calls per step (CU004)
//   steps_per_epoch  steps in one epoch (DL003)
//   kind             "memset" for CU006 (device-memory bandwidth instead of the link); the
//                    transport for DD003/DD005 ("gloo", "p2p", "ib", "shm")
//   accumulate_every micro-steps per optimizer step (DD001)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.h"

namespace stoker {

struct AnalysisResult;
struct Settings;
struct WorkloadHints;

struct HardwareProfile {
  std::string name;
  int pcie_gen = 3;
  double h2d_pinned_gbps = 12;    // achievable host-to-device, pinned, GB/s
  double h2d_pageable_gbps = 6;   // achievable host-to-device, pageable, GB/s
  double device_mem_gbps = 900;   // device memory bandwidth, GB/s
  double launch_us = 5;           // kernel launch overhead
  double sync_us = 10;            // host wait round trip of a synchronize on an idle queue
  double peak_tflops = 100;       // dense BF16/FP16 tensor-core throughput
};

// The built-in table: h100-sxm, h100-pcie, h200, b200, a100-sxm, a100-pcie, l4, rtx-4090, generic.
const std::vector<HardwareProfile>& hardware_profiles();
const HardwareProfile* find_profile(std::string_view name);

// An uncertain quantity: resolved or overridden values have lo == hi.
struct Interval {
  double lo = 0, hi = 0;
  static Interval exact(double v) { return {v, v}; }
  bool is_exact() const { return lo == hi; }
  double mid() const { return (lo + hi) / 2; }
};

// Times in milliseconds, sizes in bytes. Each field says where its value came from.
struct Workload {
  Interval t_gpu_ms;         // GPU compute per step
  Interval t_load_ms;        // producing one batch on one process
  Interval batch_bytes;      // bytes moved host-to-device per step for the batch
  Interval dispatch_ms;      // host time to refill the queue after a sync
  Interval fixed_step_ms;    // per-step fixed overhead independent of batch size (small-batch)
  Interval alloc_ms;         // one cudaMalloc/cudaFree including its implicit sync
  Interval spawn_s;          // start-up of one loader worker
  Interval steps_per_epoch;
  double batch_size = 32;
  double workers_now = 0;    // loader workers in the code as written
  double workers_fixed = 8;  // loader workers after the fix
  double target_batch = 64;  // batch size after the small-batch fix
  double amortize_every = 1;
  double copies_per_step = 1;
  double syncs_per_step = 1;
  double allocs_per_step = 1;
  bool memset = false;
  std::vector<std::string> assumptions;  // "T_gpu=20..80 ms (default)"
  // The facts as attached, for models that read keys of their own (core/impact_distributed).
  std::vector<std::pair<std::string, std::string>> facts;
};

// Builds the workload for one diagnostic: facts first, then configuration overrides
// (Settings::workload), then defaults scaled to the profile.
Workload make_workload(const HardwareProfile& hw, const std::vector<std::pair<std::string, std::string>>& facts,
                       const Settings& settings);

// Idle fractions (0..1) with the pattern present and after its fix. Each is one formula of
// rules.md "Impact models"; gain in pp = 100 * (idle_now - idle_after).
struct Idle {
  double now = 0, after = 0;
};
Idle serial_loader(double t_load_ms, double t_gpu_ms, double workers_now, double workers_fixed);
Idle pageable_copy(double bytes, double pageable_gbps, double pinned_gbps, double t_gpu_ms);
Idle blocking_copy(double t_copy_ms, double t_gpu_ms);
Idle sync_bubble(double t_sync_ms, double t_dispatch_ms, double t_gpu_ms, double amortize_every);
Idle small_batch(double t_fixed_ms, double batch, double target_batch, double t_sample_ms);
Idle alloc_in_loop(double t_alloc_ms, double calls_per_step, double t_gpu_ms, double amortize_every);
Idle respawn(double workers, double t_spawn_s, double steps_per_epoch, double t_step_ms);

// Sets one workload override from configuration or the command line: step-time-ms,
// load-time-ms, batch-bytes, workers. Returns false with `error` for an unknown key or a value
// that is not a positive number.
bool set_workload_hint(WorkloadHints& hints, std::string_view key, std::string_view value, std::string& error);

// The model names of rules.md.
const std::vector<std::string>& impact_model_names();
// Low and high idle fractions for a model over all corners of the workload's intervals.
// Returns nullopt for an unknown model.
struct IdleRange {
  double now_lo = 0, now_hi = 0, after_lo = 0, after_hi = 0, gain_lo = 0, gain_hi = 0;
};
std::optional<IdleRange> evaluate_model(std::string_view model, const HardwareProfile& hw, const Workload& w);

// The full estimate for one diagnostic, or nullopt for an unknown model.
std::optional<Impact> estimate_impact(std::string_view model, const HardwareProfile& hw, const Workload& w);

// Attaches an impact estimate to every diagnostic whose rule names a known model
// (RuleInfo::impact_model, front matter `impact:`). Called once by analyze(). Rules with
// `impact: none` (correctness rules such as TX004) get model "none", 0 pp, and say why.
void attach_impact(AnalysisResult& result, const Settings& settings);

// Like attach_impact, with the step model of each hot loop built from `all`, every finding of
// the file before selection and suppressions (result.diagnostics are the reported ones, a
// subset): "busy now" counts every finding, "after" the fixes of the reported ones. Each
// reported finding's gain becomes its share of its loop's gain (see compose_loop).
void attach_impact(AnalysisResult& result, const Settings& settings, const std::vector<Diagnostic>& all);

// --- The step model of a hot loop (docs/impact-model.md "One step model per hot loop") ------
//
// step = T_gpu + loader wait + blocking copies + syncs + allocations + respawns + overhead.
// Each member finding's model gives the host time it adds per step (the idle share it models,
// turned into milliseconds with the loop's T_gpu: T_gpu * idle / (1 - idle)) and what is left
// after its fix. Members on the same thing (a "group": one loader's wait, one batch's copy)
// overlap: within a group the findings of one rule add up, different rules take the largest,
// so DL001 and DL004 on one loader, or DL002 and TX001 on one batch, are not counted twice.
// Groups add. Busy = T_gpu / step, so no combination of fixes passes 100% busy.
// A finding's gain is what its fix adds when the loop's fixes are applied greedily, the largest
// first (the gains of a loop add up to the loop's gain, never past its idle share).

// Measured values for one loop, e.g. from a profiler trace of the user's run.
//
// Partial (step_ms and gpu_ms not both given, `waits` empty): each value replaces the model's
// assumption for every member: gpu_ms sets T_gpu, load_ms sets T_load (one batch on one
// process); step_ms alone sets T_gpu so that the modelled step now equals it.
//
// Full (step_ms and gpu_ms both given, src/trace): the step is the measured one. T_gpu = gpu_ms;
// each wait (GPU idle during host events the trace joined to members of the loop) is that
// members' host term "now", shared among them so that no idle instant counts twice; a member
// the trace joined nothing to keeps its modelled term, but only within the idle the trace leaves
// unexplained (step - gpu - joined waits), scaled down to fit; what is left of that idle is a
// per-step overhead no fix removes. So busy now = gpu_ms / step_ms exactly, and a fix removes at
// most what was measured for it (after = min(measured, the model's "after" at the measured
// T_gpu and T_load)).
struct MeasuredStep {
  std::optional<double> step_ms, gpu_ms, load_ms;
  struct Wait {
    double ms = 0;                 // per step
    std::vector<size_t> members;   // indices into LoopStep::members
    std::string what;              // the host events ("aten::item"), for the assumption lines
  };
  std::vector<Wait> waits;
  std::string source;              // "trace.json.gz, 4 steps": named in the assumption lines
  bool gpu_events = true;          // false: gpu_ms is the step less its host waits (a CPU trace)
  bool full() const { return step_ms && gpu_ms && *step_ms > 0; }
};

// Composes (or composes again) one loop from its members: fills now/after, the busy ranges and
// the dominant assumption, and returns each member's gain range in pp (index: member).
std::vector<std::pair<double, double>> compose_loop(LoopStep& loop, const HardwareProfile& hw, const Settings& settings,
                                                    const MeasuredStep* measured = nullptr);

// The hook for measured times: composes result.loops[loop] again with `m` and rewrites the gains
// (and an assumption line "measured ...") of the loop's reported diagnostics.
void apply_measurement(AnalysisResult& result, size_t loop, const MeasuredStep& m, const Settings& settings);

// GPU busy now and after all reported fixes over several loops (a file, the project): each
// loop weighted by its GPU time per step (equal by default), busy = sum T_gpu / sum step.
struct ProjectBusy {
  double now = 1, after = 1;                    // midpoints
  double now_lo = 1, now_hi = 1, after_lo = 1, after_hi = 1;
  std::string profile;
  size_t loops = 0;
  bool any() const { return loops > 0; }
};
ProjectBusy combine_loops(const std::vector<const LoopStep*>& loops);
ProjectBusy file_busy(const AnalysisResult& result);

}  // namespace stoker
