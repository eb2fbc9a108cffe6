#include "core/impact.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "core/analyzer.h"
#include "core/impact_distributed.h"
#include "core/rules.h"
#include "core/settings.h"

namespace stoker {

// --- Hardware profiles ----------------------------------------------------------------------
//
// Link bandwidths: a PCIe x16 link carries about 16 / 32 / 64 GB/s per direction at Gen3 / 4 / 5
// (PCI-SIG specifications; rules.md "Impact models"). The CUDA C++ Best Practices Guide
// (§10.1.1 "Pinned Memory") reports about 12 GB/s pinned host-to-device on a Gen3 x16 card,
// i.e. 75% of the link; we apply the same 75% to Gen4 and Gen5 links (24 and 48 GB/s).
// Pageable copies are staged by the driver through a pinned buffer (CUDA Programming Guide,
// "Page-Locked Host Memory"; PyTorch tutorial "A guide on good usage of non_blocking and
// pin_memory()"); we assume half the pinned rate. That ratio is an assumption, not a published
// figure: calibrate it with bench/calibration/pageable_copy.py.
// Launch overhead: "a few microseconds" per kernel launch (CUDA C++ Best Practices Guide,
// "Execution Configuration"; rules.md); we use 5 us. A synchronize on an idle queue costs one
// round trip of the host thread through the driver; we use 10 us (assumption, calibrate with
// bench/calibration/sync_bubble.py).
// Peak throughput is the dense (no sparsity) BF16/FP16 tensor-core figure of each datasheet,
// device memory bandwidth the datasheet's HBM/GDDR figure.
const std::vector<HardwareProfile>& hardware_profiles() {
  static const std::vector<HardwareProfile> table = {
      // NVIDIA H100 Tensor Core GPU datasheet (SXM5): BF16 1,979 TFLOPS with sparsity (989 dense),
      // 3.35 TB/s HBM3, PCIe Gen5 x16 host interface.
      {"h100-sxm", 5, 48, 24, 3350, 5, 10, 989},
      // Same datasheet, H100 PCIe: BF16 1,513 TFLOPS with sparsity (756 dense), 2 TB/s HBM2e, PCIe Gen5.
      {"h100-pcie", 5, 48, 24, 2000, 5, 10, 756},
      // NVIDIA H200 Tensor Core GPU datasheet (SXM): BF16 1,979 TFLOPS with sparsity (989 dense),
      // 4.8 TB/s HBM3e, PCIe Gen5 x16.
      {"h200", 5, 48, 24, 4800, 5, 10, 989},
      // NVIDIA HGX B200 / DGX B200 datasheet: FP16/BF16 4.5 PFLOPS with sparsity per GPU (2,250 dense),
      // 8 TB/s HBM3e; host links in HGX B200 systems are PCIe Gen5 x16.
      {"b200", 5, 48, 24, 8000, 5, 10, 2250},
      // NVIDIA A100 Tensor Core GPU datasheet (80GB SXM): BF16 312 TFLOPS dense, 2,039 GB/s HBM2e,
      // PCIe Gen4 x16.
      {"a100-sxm", 4, 24, 12, 2039, 5, 10, 312},
      // Same datasheet, A100 80GB PCIe: BF16 312 TFLOPS dense, 1,935 GB/s HBM2e, PCIe Gen4 x16.
      {"a100-pcie", 4, 24, 12, 1935, 5, 10, 312},
      // NVIDIA L4 Tensor Core GPU datasheet: BF16 242 TFLOPS with sparsity (121 dense), 300 GB/s GDDR6,
      // PCIe Gen4 x16.
      {"l4", 4, 24, 12, 300, 5, 10, 121},
      // NVIDIA Ada GPU architecture whitepaper (GeForce RTX 4090): FP16 tensor with FP32 accumulate
      // 165.2 TFLOPS dense, 1,008 GB/s GDDR6X, PCIe Gen4 x16.
      {"rtx-4090", 4, 24, 12, 1008, 5, 10, 165},
      // A conservative stand-in when the GPU is unknown: the Best Practices Guide's Gen3 figure
      // (12 GB/s pinned) and a mid-range 100 TFLOPS, 900 GB/s card.
      {"generic", 3, 12, 6, 900, 5, 10, 100},
  };
  return table;
}

const HardwareProfile* find_profile(std::string_view name) {
  for (const auto& p : hardware_profiles())
    if (p.name == name) return &p;
  return nullptr;
}

// --- Models ---------------------------------------------------------------------------------

namespace {

double clamp01(double x) { return std::isfinite(x) ? std::clamp(x, 0.0, 1.0) : 0.0; }
Idle make_idle(double now, double after) {
  now = clamp01(now);
  after = std::min(clamp01(after), now);  // a fix never makes the pattern worse
  return {now, after};
}
// Fraction of a step the GPU idles when `extra` host-side time is added to `gpu` compute.
double serial_idle(double extra, double gpu) { return extra <= 0 ? 0 : extra / (extra + std::max(gpu, 0.0)); }
// Idle fraction when `work` runs overlapped with `gpu`: only the part longer than the GPU step shows.
double overlapped_idle(double work, double gpu) {
  double longest = std::max(work, gpu);
  return longest <= 0 ? 0 : std::max(0.0, work - gpu) / longest;
}
double ms_for_bytes(double bytes, double gbps) { return gbps <= 0 ? 0 : bytes / (gbps * 1e6); }

}  // namespace

Idle serial_loader(double t_load_ms, double t_gpu_ms, double workers_now, double workers_fixed) {
  auto idle_with = [&](double w) {
    return w < 1 ? serial_idle(t_load_ms, t_gpu_ms) : overlapped_idle(t_load_ms / w, t_gpu_ms);
  };
  return make_idle(idle_with(workers_now), idle_with(std::max(workers_fixed, workers_now)));
}

Idle pageable_copy(double bytes, double pageable_gbps, double pinned_gbps, double t_gpu_ms) {
  return make_idle(serial_idle(ms_for_bytes(bytes, pageable_gbps), t_gpu_ms),
                   overlapped_idle(ms_for_bytes(bytes, pinned_gbps), t_gpu_ms));
}

Idle blocking_copy(double t_copy_ms, double t_gpu_ms) {
  return make_idle(serial_idle(t_copy_ms, t_gpu_ms), overlapped_idle(t_copy_ms, t_gpu_ms));
}

Idle sync_bubble(double t_sync_ms, double t_dispatch_ms, double t_gpu_ms, double amortize_every) {
  double per_step = (t_sync_ms + t_dispatch_ms) / std::max(1.0, amortize_every);
  return make_idle(serial_idle(per_step, t_gpu_ms), 0);
}

Idle small_batch(double t_fixed_ms, double batch, double target_batch, double t_sample_ms) {
  batch = std::max(1.0, batch);
  target_batch = std::max(batch, target_batch);
  return make_idle(serial_idle(t_fixed_ms, batch * t_sample_ms), serial_idle(t_fixed_ms, target_batch * t_sample_ms));
}

Idle alloc_in_loop(double t_alloc_ms, double calls_per_step, double t_gpu_ms, double amortize_every) {
  return make_idle(serial_idle(t_alloc_ms * calls_per_step / std::max(1.0, amortize_every), t_gpu_ms), 0);
}

Idle respawn(double workers, double t_spawn_s, double steps_per_epoch, double t_step_ms) {
  return make_idle(serial_idle(workers * t_spawn_s * 1000, steps_per_epoch * t_step_ms), 0);
}

const std::vector<std::string>& impact_model_names() {
  static const std::vector<std::string> names = {"serial-loader", "pageable-copy", "blocking-copy", "sync-bubble",
                                                 "small-batch",   "alloc-in-loop", "respawn",
                                                 // core/impact_distributed
                                                 "allreduce-per-microstep", "unused-parameter-search",
                                                 "slow-collective"};
  return names;
}

// --- Workload -------------------------------------------------------------------------------

namespace {

// Reference GPU for the time defaults: an A100 (312 dense BF16 TFLOPS). Faster GPUs finish the
// same step proportionally sooner.
constexpr double kReferenceTflops = 312;

std::optional<double> fact_number(const std::vector<std::pair<std::string, std::string>>& facts, std::string_view key) {
  for (const auto& [k, v] : facts) {
    if (k != key) continue;
    char* end = nullptr;
    double x = std::strtod(v.c_str(), &end);
    if (end && *end == '\0' && end != v.c_str() && std::isfinite(x) && x >= 0) return x;
  }
  return std::nullopt;
}

std::string fmt(double x) {
  char buf[32];
  if (x >= 100 || x == std::floor(x)) std::snprintf(buf, sizeof buf, "%.0f", x);
  else if (x >= 1) std::snprintf(buf, sizeof buf, "%.1f", x);
  else std::snprintf(buf, sizeof buf, "%.2g", x);
  return buf;
}
std::string fmt(Interval i) { return i.is_exact() ? fmt(i.lo) : fmt(i.lo) + ".." + fmt(i.hi); }

}  // namespace

Workload make_workload(const HardwareProfile& hw, const std::vector<std::pair<std::string, std::string>>& facts,
                       const Settings& settings) {
  Workload w;
  w.facts = facts;
  auto& notes = w.assumptions;
  const double speed = kReferenceTflops / std::max(1.0, hw.peak_tflops);

  if (auto b = fact_number(facts, "batch_size"); b && *b >= 1) {
    w.batch_size = *b;
    notes.push_back("batch_size=" + fmt(*b) + " (resolved)");
  } else {
    notes.push_back("batch_size=" + fmt(w.batch_size) + " (default)");
  }
  if (auto v = fact_number(facts, "num_workers")) w.workers_now = *v;
  if (settings.workload.workers && *settings.workload.workers > 0) {
    w.workers_fixed = *settings.workload.workers;
    notes.push_back("workers after fix=" + fmt(w.workers_fixed) + " (configured)");
  } else {
    notes.push_back("workers after fix=" + fmt(w.workers_fixed) + " (default)");
  }
  if (w.workers_now > 0) notes.push_back("workers now=" + fmt(w.workers_now) + " (resolved)");

  if (settings.workload.step_time_ms && *settings.workload.step_time_ms > 0) {
    w.t_gpu_ms = Interval::exact(*settings.workload.step_time_ms);
    notes.push_back("T_gpu=" + fmt(w.t_gpu_ms) + " ms/step (configured)");
  } else {
    // Assumption: 20..80 ms of GPU compute per step on the reference A100, a mid-sized vision or
    // language model step; scaled by peak throughput.
    w.t_gpu_ms = {20 * speed, 80 * speed};
    notes.push_back("T_gpu=" + fmt(w.t_gpu_ms) + " ms/step (default, scaled to " + fmt(hw.peak_tflops) + " TFLOPS)");
  }
  if (settings.workload.load_time_ms && *settings.workload.load_time_ms > 0) {
    w.t_load_ms = Interval::exact(*settings.workload.load_time_ms);
    notes.push_back("T_load=" + fmt(w.t_load_ms) + " ms/batch on one process (configured)");
  } else {
    // Assumption: 0.5..2 ms to read, decode and augment one sample on one CPU core (an ImageNet
    // JPEG at 224 px); calibrate with bench/calibration/serial_loader.py.
    w.t_load_ms = {0.5 * w.batch_size, 2.0 * w.batch_size};
    notes.push_back("T_load=" + fmt(w.t_load_ms) + " ms/batch on one process (default 0.5..2 ms/sample)");
  }
  if (settings.workload.batch_bytes && *settings.workload.batch_bytes > 0) {
    w.batch_bytes = Interval::exact(*settings.workload.batch_bytes);
    notes.push_back("batch_bytes=" + fmt(w.batch_bytes) + " (configured)");
  } else if (auto c = fact_number(facts, "copy_bytes")) {
    w.batch_bytes = Interval::exact(*c);
    notes.push_back("copy_bytes=" + fmt(*c) + " (resolved)");
  } else if (auto s = fact_number(facts, "sample_bytes")) {
    w.batch_bytes = Interval::exact(*s * w.batch_size);
    notes.push_back("batch_bytes=" + fmt(w.batch_bytes) + " (resolved sample size x batch)");
  } else {
    // Assumption: one 3x224x224 image per sample, uint8 (150,528 B) to float32 (602,112 B).
    w.batch_bytes = {150528.0 * w.batch_size, 602112.0 * w.batch_size};
    notes.push_back("batch_bytes=" + fmt(w.batch_bytes) + " (default 3x224x224 uint8..float32 per sample)");
  }
  w.dispatch_ms = {0.2, 2.0};  // host refills the queue: eager PyTorch dispatches ~10-20 us/op, 20-100 ops
  w.fixed_step_ms = {1.0, 5.0};  // launches, optimizer step and Python per step, independent of batch
  w.alloc_ms = {0.05, 1.0};      // cudaMalloc/cudaFree, cudaFree synchronizes the device
  w.spawn_s = {0.05, 0.5};       // fork/spawn + dataset pickling + imports per worker
  w.steps_per_epoch = {200, 5000};
  if (auto v = fact_number(facts, "steps_per_epoch"); v && *v >= 1) w.steps_per_epoch = Interval::exact(*v);
  if (auto v = fact_number(facts, "amortize_every"); v && *v >= 1) {
    w.amortize_every = *v;
    notes.push_back("runs every " + fmt(*v) + " steps (resolved)");
  }
  if (auto v = fact_number(facts, "copies_per_step"); v && *v >= 1) w.copies_per_step = *v;
  if (auto v = fact_number(facts, "syncs_per_step"); v && *v >= 1) w.syncs_per_step = *v;
  if (auto v = fact_number(facts, "allocs_per_step"); v && *v >= 1) w.allocs_per_step = *v;
  for (const auto& [k, v] : facts)
    if (k == "kind" && v == "memset") w.memset = true;
  w.target_batch = std::max<double>(64, settings.min_batch_size);
  return w;
}

bool set_workload_hint(WorkloadHints& hints, std::string_view key, std::string_view value, std::string& error) {
  std::string v(value);
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || !end || *end != '\0' || !std::isfinite(x) || x <= 0) {
    error = "workload `" + std::string(key) + "` needs a positive number, got `" + v + "`";
    return false;
  }
  if (key == "step-time-ms") hints.step_time_ms = x;
  else if (key == "load-time-ms") hints.load_time_ms = x;
  else if (key == "batch-bytes") hints.batch_bytes = x;
  else if (key == "workers") {
    if (x != std::floor(x)) {
      error = "workload `workers` needs a whole number, got `" + v + "`";
      return false;
    }
    hints.workers = static_cast<int>(x);
  } else {
    error = "unknown workload key `" + std::string(key) + "` (known: step-time-ms, load-time-ms, batch-bytes, workers)";
    return false;
  }
  return true;
}

// --- Evaluation -----------------------------------------------------------------------------

namespace {

struct Point {
  double t_gpu, t_load, bytes, dispatch, fixed, alloc, spawn, steps;
};

std::optional<Idle> evaluate_point(std::string_view model, const HardwareProfile& hw, const Workload& w,
                                   const Point& p) {
  if (model == "serial-loader") return serial_loader(p.t_load, p.t_gpu, w.workers_now, w.workers_fixed);
  if (model == "pageable-copy")
    return pageable_copy(p.bytes * w.copies_per_step, hw.h2d_pageable_gbps, hw.h2d_pinned_gbps, p.t_gpu);
  if (model == "blocking-copy") {
    double bw = w.memset ? hw.device_mem_gbps : hw.h2d_pinned_gbps;
    double t_copy = w.copies_per_step * (ms_for_bytes(p.bytes, bw) + hw.sync_us / 1000);
    return blocking_copy(t_copy, p.t_gpu);
  }
  if (model == "sync-bubble")
    return sync_bubble(w.syncs_per_step * hw.sync_us / 1000, w.syncs_per_step * p.dispatch, p.t_gpu, w.amortize_every);
  if (model == "small-batch") {
    // Per-sample GPU time: the default step time spread over a batch of 64 on the reference GPU.
    double t_sample = p.t_gpu / 64.0;
    return small_batch(p.fixed, w.batch_size, w.target_batch, t_sample);
  }
  if (model == "alloc-in-loop") return alloc_in_loop(p.alloc, w.allocs_per_step, p.t_gpu, w.amortize_every);
  if (model == "respawn") return respawn(std::max(1.0, w.workers_now), p.spawn, p.steps, p.t_gpu);
  return std::nullopt;
}

}  // namespace

std::optional<IdleRange> evaluate_model(std::string_view model, const HardwareProfile& hw, const Workload& w) {
  if (is_distributed_model(model)) return evaluate_distributed_model(model, hw, w);
  const Interval* iv[8] = {&w.t_gpu_ms, &w.dispatch_ms, &w.fixed_step_ms, &w.alloc_ms,
                           &w.spawn_s,  &w.steps_per_epoch, &w.t_load_ms, &w.batch_bytes};
  IdleRange r{1, 0, 1, 0, 100, -100};
  bool any = false;
  for (unsigned corner = 0; corner < (1u << 8); ++corner) {
    auto pick = [&](int i) { return (corner >> i) & 1 ? iv[i]->hi : iv[i]->lo; };
    Point p{pick(0), pick(6), pick(7), pick(1), pick(2), pick(3), pick(4), pick(5)};
    auto idle = evaluate_point(model, hw, w, p);
    if (!idle) return std::nullopt;
    any = true;
    double gain = 100 * (idle->now - idle->after);
    r.now_lo = std::min(r.now_lo, idle->now);
    r.now_hi = std::max(r.now_hi, idle->now);
    r.after_lo = std::min(r.after_lo, idle->after);
    r.after_hi = std::max(r.after_hi, idle->after);
    r.gain_lo = std::min(r.gain_lo, gain);
    r.gain_hi = std::max(r.gain_hi, gain);
  }
  if (!any) return std::nullopt;
  r.gain_lo = std::clamp(r.gain_lo, 0.0, 100.0);
  r.gain_hi = std::clamp(r.gain_hi, r.gain_lo, 100.0);
  return r;
}

std::optional<Impact> estimate_impact(std::string_view model, const HardwareProfile& hw, const Workload& w) {
  auto r = evaluate_model(model, hw, w);
  if (!r) return std::nullopt;
  Impact impact;
  impact.model = std::string(model);
  impact.profile = hw.name;
  impact.gain_low = r->gain_lo;
  impact.gain_high = r->gain_hi;
  impact.idle_now = (r->now_lo + r->now_hi) / 2;
  impact.idle_after = std::min(impact.idle_now, (r->after_lo + r->after_hi) / 2);
  impact.assumptions.push_back("profile " + hw.name + ": PCIe Gen" + std::to_string(hw.pcie_gen) + ", " +
                               fmt(hw.h2d_pinned_gbps) + " GB/s pinned, " + fmt(hw.h2d_pageable_gbps) +
                               " GB/s pageable, " + fmt(hw.peak_tflops) + " TFLOPS");
  // Only the assumptions the model reads.
  auto uses = [&](std::string_view prefix) {
    static const std::map<std::string, std::vector<std::string>, std::less<>> by_model = {
        {"serial-loader", {"batch_size", "workers", "T_gpu", "T_load"}},
        {"pageable-copy", {"batch_size", "T_gpu", "batch_bytes", "copy_bytes"}},
        {"blocking-copy", {"batch_size", "T_gpu", "batch_bytes", "copy_bytes"}},
        {"sync-bubble", {"T_gpu", "runs every"}},
        {"small-batch", {"batch_size", "T_gpu"}},
        {"alloc-in-loop", {"T_gpu", "runs every"}},
        {"respawn", {"workers now", "T_gpu"}},
    };
    auto it = by_model.find(model);
    if (it == by_model.end()) return false;
    for (const auto& p : it->second)
      if (prefix.substr(0, p.size()) == p) return true;
    return false;
  };
  for (const auto& a : w.assumptions)
    if (uses(a)) impact.assumptions.push_back(a);
  if (model == "sync-bubble")
    impact.assumptions.push_back("t_sync=" + fmt(hw.sync_us) + " us, T_dispatch=" + fmt(w.dispatch_ms) +
                                 " ms to refill the queue (default)");
  if (model == "small-batch")
    impact.assumptions.push_back("T_fixed=" + fmt(w.fixed_step_ms) + " ms/step (default), batch after fix=" +
                                 fmt(w.target_batch));
  if (model == "alloc-in-loop") impact.assumptions.push_back("t_alloc=" + fmt(w.alloc_ms) + " ms/call (default)");
  if (is_distributed_model(model))
    for (auto& a : distributed_assumptions(model, w)) impact.assumptions.push_back(std::move(a));
  if (model == "respawn")
    impact.assumptions.push_back("t_spawn=" + fmt(w.spawn_s) + " s/worker, " + fmt(w.steps_per_epoch) +
                                 " steps/epoch (default)");
  return impact;
}

void attach_impact(AnalysisResult& result, const Settings& settings) {
  const RuleRegistry& rules = RuleRegistry::builtin();
  const HardwareProfile* hw = find_profile(settings.gpu);
  if (!hw) hw = find_profile("generic");
  for (auto& d : result.diagnostics) {
    if (d.impact) continue;  // a front end that knows better keeps its estimate
    const RuleInfo* info = rules.find(d.code);
    if (!info || info->impact_model.empty()) continue;
    if (info->impact_model == "none") {
      // A correctness rule (wrong results, not idle time): say so instead of estimating.
      Impact none;
      none.model = "none";
      none.profile = hw->name;
      none.assumptions.push_back("no GPU time at stake: this rule is about correctness");
      d.impact = std::move(none);
      continue;
    }
    Workload w = make_workload(*hw, d.facts, settings);
    d.impact = estimate_impact(info->impact_model, *hw, w);
  }
}

FileBusy estimate_file_busy(const std::vector<Diagnostic>& diags) {
  FileBusy b;
  double extra_now = 0, extra_after = 0;  // idle time per unit of GPU time
  for (const auto& d : diags) {
    if (!d.impact || d.impact->model == "none") continue;
    b.any = true;
    b.profile = d.impact->profile;
    double in = std::clamp(d.impact->idle_now, 0.0, 0.999);
    double ia = std::clamp(d.impact->idle_after, 0.0, in);
    extra_now += in / (1 - in);
    extra_after += ia / (1 - ia);
  }
  b.now = 1 / (1 + extra_now);
  b.after = 1 / (1 + extra_after);
  return b;
}

}  // namespace stoker
