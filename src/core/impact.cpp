#include "core/impact.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

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

// Keys the C++ front end spells differently.
std::string_view canonical_key(std::string_view k) {
  if (k == "workers") return "num_workers";
  if (k == "amortized_every") return "amortize_every";
  return k;
}

std::optional<double> fact_number(const std::vector<std::pair<std::string, std::string>>& facts, std::string_view key) {
  for (const auto& [k, v] : facts) {
    if (canonical_key(k) != key) continue;
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

namespace {
// `keep_notes` false: the numbers only, without the assumption notes (the step composer reads
// only the numbers; formatting every note per member and per loop was most of its time).

Workload build_workload(const HardwareProfile& hw, const std::vector<std::pair<std::string, std::string>>& facts,
                        const Settings& settings, bool keep_notes) {
  Workload w;
  w.facts = facts;
  std::vector<std::string>* notes = keep_notes ? &w.assumptions : nullptr;
  const double speed = kReferenceTflops / std::max(1.0, hw.peak_tflops);

  if (auto b = fact_number(facts, "batch_size"); b && *b >= 1) {
    w.batch_size = *b;
    if (notes) notes->push_back("batch_size=" + fmt(*b) + " (resolved)");
  } else {
    if (notes) notes->push_back("batch_size=" + fmt(w.batch_size) + " (default)");
  }
  auto workers_now = fact_number(facts, "num_workers");
  if (workers_now) w.workers_now = *workers_now;
  if (settings.workload.workers && *settings.workload.workers > 0) {
    w.workers_fixed = *settings.workload.workers;
    if (notes) notes->push_back("workers after fix=" + fmt(w.workers_fixed) + " (configured)");
  } else {
    if (notes) notes->push_back("workers after fix=" + fmt(w.workers_fixed) + " (default)");
  }
  if (notes) notes->push_back("workers now=" + fmt(w.workers_now) + (workers_now ? " (resolved)" : " (default)"));

  if (settings.workload.step_time_ms && *settings.workload.step_time_ms > 0) {
    w.t_gpu_ms = Interval::exact(*settings.workload.step_time_ms);
    if (notes) notes->push_back("T_gpu=" + fmt(w.t_gpu_ms) + " ms/step (configured)");
  } else {
    // Assumption: 20..80 ms of GPU compute per step on the reference A100, a mid-sized vision or
    // language model step; scaled by peak throughput.
    w.t_gpu_ms = {20 * speed, 80 * speed};
    if (notes)
      notes->push_back("T_gpu=" + fmt(w.t_gpu_ms) + " ms/step (default, scaled to " + fmt(hw.peak_tflops) + " TFLOPS)");
  }
  if (settings.workload.load_time_ms && *settings.workload.load_time_ms > 0) {
    w.t_load_ms = Interval::exact(*settings.workload.load_time_ms);
    if (notes) notes->push_back("T_load=" + fmt(w.t_load_ms) + " ms/batch on one process (configured)");
  } else {
    // Assumption: 0.5..2 ms to read, decode and augment one sample on one CPU core (an ImageNet
    // JPEG at 224 px); calibrate with bench/calibration/serial_loader.py.
    w.t_load_ms = {0.5 * w.batch_size, 2.0 * w.batch_size};
    if (notes)
      notes->push_back("T_load=" + fmt(w.t_load_ms) + " ms/batch on one process (default 0.5..2 ms/sample x batch " +
                       fmt(w.batch_size) + ")");
  }
  if (settings.workload.batch_bytes && *settings.workload.batch_bytes > 0) {
    w.batch_bytes = Interval::exact(*settings.workload.batch_bytes);
    if (notes) notes->push_back("batch_bytes=" + fmt(w.batch_bytes) + " (configured)");
  } else if (auto c = fact_number(facts, "copy_bytes")) {
    w.batch_bytes = Interval::exact(*c);
    if (notes) notes->push_back("copy_bytes=" + fmt(*c) + " (resolved)");
  } else if (auto s = fact_number(facts, "sample_bytes")) {
    w.batch_bytes = Interval::exact(*s * w.batch_size);
    if (notes) notes->push_back("batch_bytes=" + fmt(w.batch_bytes) + " (resolved sample size x batch)");
  } else {
    // Assumption: one 3x224x224 image per sample, uint8 (150,528 B) to float32 (602,112 B).
    w.batch_bytes = {150528.0 * w.batch_size, 602112.0 * w.batch_size};
    if (notes) notes->push_back("batch_bytes=" + fmt(w.batch_bytes) + " (default 3x224x224 uint8..float32 per sample)");
  }
  w.dispatch_ms = {0.2, 2.0};  // host refills the queue: eager PyTorch dispatches ~10-20 us/op, 20-100 ops
  w.fixed_step_ms = {1.0, 5.0};  // launches, optimizer step and Python per step, independent of batch
  w.alloc_ms = {0.05, 1.0};      // cudaMalloc/cudaFree, cudaFree synchronizes the device
  w.spawn_s = {0.05, 0.5};       // fork/spawn + dataset pickling + imports per worker
  w.steps_per_epoch = {200, 5000};
  if (auto v = fact_number(facts, "steps_per_epoch"); v && *v >= 1) {
    w.steps_per_epoch = Interval::exact(*v);
    if (notes)
      notes->push_back("steps_per_epoch=" + fmt(*v) + " (resolved from the dataset length and batch size)");
  } else {
    if (notes) notes->push_back("steps_per_epoch=" + fmt(w.steps_per_epoch) + " (default)");
  }
  if (auto v = fact_number(facts, "amortize_every"); v && *v >= 1) {
    w.amortize_every = *v;
    if (notes) notes->push_back("runs every " + fmt(*v) + " steps (resolved)");
  }
  if (auto v = fact_number(facts, "copies_per_step"); v && *v >= 1) {
    w.copies_per_step = *v;
    if (notes) notes->push_back("copies_per_step=" + fmt(*v) + " (resolved)");
  }
  if (auto v = fact_number(facts, "syncs_per_step"); v && *v >= 1) {
    w.syncs_per_step = *v;
    if (notes) notes->push_back("syncs_per_step=" + fmt(*v) + " (resolved)");
  }
  if (auto v = fact_number(facts, "allocs_per_step"); v && *v >= 1) {
    w.allocs_per_step = *v;
    if (notes) notes->push_back("allocs_per_step=" + fmt(*v) + " (resolved)");
  }
  for (const auto& [k, v] : facts)
    if (k == "kind" && v == "memset") w.memset = true;
  w.target_batch = std::max<double>(64, settings.min_batch_size);
  return w;
}
}  // namespace

Workload make_workload(const HardwareProfile& hw, const std::vector<std::pair<std::string, std::string>>& facts,
                       const Settings& settings) {
  return build_workload(hw, facts, settings, true);
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

bool model_reads(std::string_view model, int i);

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
  // Corners that differ only in an interval the model does not read, or in an exact one, are
  // the same point: each distinct point is evaluated once (the same minima and maxima).
  unsigned varying = 0;
  for (int i = 0; i < 8; ++i)
    if (model_reads(model, i) && !iv[i]->is_exact()) varying |= 1u << i;
  for (unsigned corner = 0; corner < (1u << 8); ++corner) {
    if (corner & ~varying) continue;
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
        {"pageable-copy", {"batch_size", "T_gpu", "batch_bytes", "copy_bytes", "copies_per_step"}},
        {"blocking-copy", {"batch_size", "T_gpu", "batch_bytes", "copy_bytes", "copies_per_step"}},
        {"sync-bubble", {"T_gpu", "runs every", "syncs_per_step"}},
        {"small-batch", {"batch_size", "T_gpu"}},
        {"alloc-in-loop", {"T_gpu", "runs every", "allocs_per_step"}},
        {"respawn", {"workers now", "T_gpu", "steps_per_epoch"}},
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
    impact.assumptions.push_back("t_spawn=" + fmt(w.spawn_s) + " s/worker (default)");
  return impact;
}

namespace {

std::optional<std::string> fact_text(const std::vector<std::pair<std::string, std::string>>& facts, std::string_view key) {
  for (const auto& [k, v] : facts)
    if (canonical_key(k) == key) return v;
  return std::nullopt;
}

StepTerm term_of(std::string_view model) {
  if (model == "serial-loader") return StepTerm::LoaderWait;
  if (model == "pageable-copy" || model == "blocking-copy") return StepTerm::Copies;
  if (model == "sync-bubble") return StepTerm::Syncs;
  if (model == "alloc-in-loop") return StepTerm::Allocations;
  if (model == "respawn") return StepTerm::Respawns;
  // small-batch, and the DD models (exposed all-reduces, the unused-parameter search): time
  // per step that is neither GPU work nor one of the waits above.
  return StepTerm::Overhead;
}

// What a member overlaps with: the same loader's wait, the same batch's copy (DL002 pins the
// batch that TX001 copies), the same loader's respawns or batch size; anything else is its own.
std::string group_of(const StepMember& m) {
  StepTerm t = term_of(m.model);
  auto loader = fact_text(m.facts, "loader");
  std::string own = std::to_string(static_cast<int>(t)) + ":at:" + std::to_string(m.offset);
  if (!loader) return own;
  std::string by_loader = std::to_string(static_cast<int>(t)) + ":loader:" + *loader;
  switch (t) {
    case StepTerm::LoaderWait:
    case StepTerm::Respawns: return by_loader;
    case StepTerm::Overhead: return m.model == "small-batch" ? by_loader : own;
    case StepTerm::Copies:
      if (m.code == "DL002" || m.code == "DL006" || m.code == "TX001") return by_loader;
      return own;
    default: return own;
  }
}

// Host milliseconds per step that an idle share stands for, with `gpu` ms of GPU work.
double idle_to_ms(double idle, double gpu) {
  idle = std::clamp(idle, 0.0, 0.999);
  return gpu * idle / (1 - idle);
}

constexpr int kIntervals = 8;
const char* const kIntervalNames[kIntervals] = {"T_gpu",  "T_dispatch", "T_fixed", "t_alloc",
                                                "t_spawn", "steps_per_epoch", "T_load", "batch bytes"};
const char* const kIntervalUnits[kIntervals] = {" ms/step", " ms", " ms/step", " ms/call", " s/worker", "",
                                                " ms/batch", " B"};
const Interval& interval_of(const Workload& w, int i) {
  switch (i) {
    case 0: return w.t_gpu_ms;
    case 1: return w.dispatch_ms;
    case 2: return w.fixed_step_ms;
    case 3: return w.alloc_ms;
    case 4: return w.spawn_s;
    case 5: return w.steps_per_epoch;
    case 6: return w.t_load_ms;
    default: return w.batch_bytes;
  }
}
// Which of the eight intervals a model reads.
bool model_reads(std::string_view model, int i) {
  switch (i) {
    case 0: return true;
    case 1: return model == "sync-bubble";
    case 2: return model == "small-batch";
    case 3: return model == "alloc-in-loop";
    case 4:
    case 5: return model == "respawn";
    case 6: return model == "serial-loader";
    default: return model == "pageable-copy" || model == "blocking-copy";
  }
}

struct Composer {
  const HardwareProfile& hw;
  std::vector<Workload> work;  // per member
  const LoopStep& loop;
  std::vector<int> group, code;  // per member: group index, code index within the group
  std::vector<StepTerm> group_term;
  std::vector<std::optional<IdleRange>> ranges;  // per member, for models without a point form
  size_t groups = 0;
  // A full measurement (MeasuredStep::full): each member's measured host term (none: modelled)
  // and the measured step.
  std::vector<std::optional<double>> measured_now;
  std::optional<double> step_ms;

  Composer(const HardwareProfile& h, const LoopStep& l, const Settings& s) : hw(h), loop(l) {
    std::map<std::string, int> gi;
    std::vector<std::map<std::string, int>> ci;
    for (const auto& m : l.members) {
      work.push_back(build_workload(hw, m.facts, s, false));
      ranges.push_back(is_distributed_model(m.model) ? evaluate_model(m.model, hw, work.back()) : std::nullopt);
      auto [it, fresh] = gi.try_emplace(group_of(m), static_cast<int>(gi.size()));
      if (fresh) {
        ci.emplace_back();
        group_term.push_back(term_of(m.model));
      }
      group.push_back(it->second);
      auto& codes = ci[it->second];
      code.push_back(codes.try_emplace(m.code, static_cast<int>(codes.size())).first->second);
      codes_per_group = std::max(codes_per_group, codes.size());
    }
    groups = gi.size();
  }

  // One corner: each interval at lo (0), hi (1) or its midpoint (2).
  struct Corner {
    double gpu = 0;
    double other = 0;                // measured idle no member takes (a per-step overhead)
    std::vector<double> now, after;  // host ms per member
  };
  Corner eval(const int (&mode)[kIntervals]) const {
    Corner c;
    for (size_t k = 0; k < work.size(); ++k) {
      const Workload& w = work[k];
      auto pick = [&](int i) {
        const Interval& iv = interval_of(w, i);
        return mode[i] == 0 ? iv.lo : mode[i] == 1 ? iv.hi : iv.mid();
      };
      Point p{pick(0), pick(6), pick(7), pick(1), pick(2), pick(3), pick(4), pick(5)};
      if (k == 0) c.gpu = p.t_gpu;
      auto idle = evaluate_point(loop.members[k].model, hw, w, p);
      if (!idle && ranges[k]) {
        // A model without a point form (the DD models): its own range, high idle with a short step.
        const IdleRange& r = *ranges[k];
        idle = mode[0] == 0   ? Idle{r.now_hi, r.after_hi}
               : mode[0] == 1 ? Idle{r.now_lo, r.after_lo}
                              : Idle{(r.now_lo + r.now_hi) / 2, (r.after_lo + r.after_hi) / 2};
      }
      c.now.push_back(idle ? idle_to_ms(idle->now, p.t_gpu) : 0);
      c.after.push_back(idle ? idle_to_ms(idle->after, p.t_gpu) : 0);
    }
    if (work.empty()) {
      // No members: only the GPU work.
      c.gpu = 1;
    }
    if (step_ms) fit_measured(c);
    return c;
  }
  // A full measurement: measured members take their measured term (their fix removes at most
  // that); the others are modelled within the idle the trace leaves unexplained, scaled down to
  // fit; the rest of that idle is `other`. The step is then the measured one.
  void fit_measured(Corner& c) const {
    size_t n = c.now.size();
    std::vector<double> only(n, 0);
    for (size_t k = 0; k < n; ++k)
      if (k < measured_now.size() && measured_now[k]) {
        c.now[k] = *measured_now[k];
        c.after[k] = std::min(c.after[k], c.now[k]);
        only[k] = c.now[k];
      }
    const double joined = host_ms(only);
    const double room = std::max(0.0, *step_ms - c.gpu - joined);
    const double modelled = host_ms(c.now) - joined;
    if (modelled > room && modelled > 0) {
      const double f = room / modelled;
      for (size_t k = 0; k < n; ++k)
        if (k >= measured_now.size() || !measured_now[k]) c.now[k] *= f, c.after[k] *= f;
    }
    c.other = std::max(0.0, *step_ms - c.gpu - host_ms(c.now));
  }
  // Host ms per group for the given per-member contributions: per group, the members of one
  // rule add up and different rules overlap (the largest sum). One flat table of (group, code)
  // sums, reused: host_ms runs for every corner and every greedy trial.
  std::vector<double> group_ms(const std::vector<double>& contrib) const {
    std::vector<double> out(groups, 0);
    group_ms_into(contrib, out);
    return out;
  }
  void group_ms_into(const std::vector<double>& contrib, std::vector<double>& out) const {
    sums_.assign(groups * codes_per_group, 0.0);
    for (size_t k = 0; k < contrib.size(); ++k) sums_[group[k] * codes_per_group + code[k]] += contrib[k];
    out.assign(groups, 0);
    for (size_t g = 0; g < groups; ++g)
      for (size_t c = 0; c < codes_per_group; ++c) out[g] = std::max(out[g], sums_[g * codes_per_group + c]);
  }
  double host_ms(const std::vector<double>& contrib) const {
    group_ms_into(contrib, per_group_);
    double t = 0;
    for (double g : per_group_) t += g;
    return t;
  }
  size_t codes_per_group = 0;  // the most codes of one group
  mutable std::vector<double> sums_, per_group_;
  static double busy(double gpu, double host) { return gpu + host > 0 ? gpu / (gpu + host) : 1; }
  std::vector<double> fixed(const Corner& c) const {
    std::vector<double> f = c.now;
    for (size_t k = 0; k < f.size(); ++k)
      if (loop.members[k].reported) f[k] = c.after[k];
    return f;
  }
  // Per-member gains (busy fraction) at one corner. The fixes of one group are applied
  // together (they pay together: DL002 with the TX001s of its batch), groups greedily, the
  // largest gain first; a group's gain is split among its reported members in proportion to
  // what each fix removes. With many groups and members, the loop's gain is split that way
  // directly.
  std::vector<double> attribute(const Corner& c) const {
    size_t n = c.now.size();
    std::vector<double> gain(n, 0), cur = c.now;
    double b_cur = busy(c.gpu, host_ms(cur) + c.other);
    auto split = [&](double total, auto&& in) {
      double removed = 0, count = 0;
      for (size_t k = 0; k < n; ++k)
        if (in(k) && loop.members[k].reported) removed += std::max(0.0, c.now[k] - c.after[k]), ++count;
      for (size_t k = 0; k < n; ++k)
        if (in(k) && loop.members[k].reported)
          gain[k] = removed > 0 ? total * std::max(0.0, c.now[k] - c.after[k]) / removed : total / count;
    };
    // Greedy costs groups^2 * members per corner: past a bound, split the loop's gain directly.
    if (groups * groups * n > 20000) {
      split(busy(c.gpu, host_ms(fixed(c)) + c.other) - b_cur, [](size_t) { return true; });
      return gain;
    }
    std::vector<char> done(groups, 0);
    for (size_t round = 0; round < groups; ++round) {
      int best = -1;
      double best_b = b_cur;
      for (size_t g = 0; g < groups; ++g) {
        if (done[g]) continue;
        std::vector<double> trial = cur;
        bool any = false;
        for (size_t k = 0; k < n; ++k)
          if (group[k] == static_cast<int>(g) && loop.members[k].reported) trial[k] = c.after[k], any = true;
        if (!any) continue;
        double b = busy(c.gpu, host_ms(trial) + c.other);
        if (best < 0 || b > best_b) best = static_cast<int>(g), best_b = b;
      }
      if (best < 0) break;
      done[best] = 1;
      for (size_t k = 0; k < n; ++k)
        if (group[k] == best && loop.members[k].reported) cur[k] = c.after[k];
      split(std::max(0.0, best_b - b_cur), [&](size_t k) { return group[k] == best; });
      b_cur = std::max(b_cur, best_b);
    }
    return gain;
  }
};

void fill_breakdown(const Composer& cp, const std::vector<double>& contrib, double gpu, double other,
                    StepBreakdown& out) {
  out = StepBreakdown{};
  out.gpu_ms = gpu;
  auto g = cp.group_ms(contrib);
  for (size_t i = 0; i < g.size(); ++i) out.host_ms[static_cast<int>(cp.group_term[i])] += g[i];
  out.host_ms[static_cast<int>(StepTerm::Overhead)] += other;
}

// A full measurement's waits as each member's measured host term: a wait is split evenly among
// the groups of the members it is joined to (different groups would otherwise count the same
// idle twice), and within a group among the members of each rule (one rule's members add up,
// different rules overlap: each rule then sums to the group's share). Members no wait joins:
// none.
std::vector<std::optional<double>> measured_shares(const LoopStep& loop, const MeasuredStep& m) {
  std::vector<std::optional<double>> out(loop.members.size());
  for (const auto& w : m.waits) {
    std::map<std::string, std::map<std::string, std::vector<size_t>>> by_group;  // group -> code -> members
    for (size_t k : w.members)
      if (k < loop.members.size()) by_group[group_of(loop.members[k])][loop.members[k].code].push_back(k);
    if (by_group.empty()) continue;
    const double share = std::max(0.0, w.ms) / static_cast<double>(by_group.size());
    for (const auto& [g, codes] : by_group)
      for (const auto& [code, members] : codes)
        for (size_t k : members) out[k] = out[k].value_or(0) + share / static_cast<double>(members.size());
  }
  return out;
}

}  // namespace

std::vector<std::pair<double, double>> compose_loop(LoopStep& loop, const HardwareProfile& hw, const Settings& settings,
                                                    const MeasuredStep* measured) {
  Settings s = settings;
  loop.profile = hw.name;
  loop.measured = false;
  const bool full_measure = measured && measured->full();
  if (full_measure) {
    s.workload.step_time_ms = std::max(1e-6, *measured->gpu_ms);
    if (measured->load_ms && *measured->load_ms > 0) s.workload.load_time_ms = *measured->load_ms;
    loop.measured = true;
  } else if (measured) {
    if (measured->load_ms && *measured->load_ms > 0) s.workload.load_time_ms = *measured->load_ms;
    if (measured->gpu_ms && *measured->gpu_ms > 0) {
      s.workload.step_time_ms = *measured->gpu_ms;
    } else if (measured->step_ms && *measured->step_ms > 0) {
      // The T_gpu whose modelled step (at the midpoint of the other assumptions) is the measured
      // step: the modelled step grows with T_gpu, so bisect.
      double lo = 1e-3, hi = *measured->step_ms;
      const int mids[kIntervals] = {2, 2, 2, 2, 2, 2, 2, 2};
      for (int i = 0; i < 60; ++i) {
        double g = (lo + hi) / 2;
        s.workload.step_time_ms = g;
        Composer cp(hw, loop, s);
        auto c = cp.eval(mids);
        (g + cp.host_ms(c.now) > *measured->step_ms ? hi : lo) = g;
      }
      s.workload.step_time_ms = (lo + hi) / 2;
    }
    loop.measured = measured->gpu_ms || measured->step_ms || measured->load_ms;
  }
  Composer cp(hw, loop, s);
  if (full_measure) {
    cp.measured_now = measured_shares(loop, *measured);
    cp.step_ms = std::max(*measured->step_ms, s.workload.step_time_ms.value_or(0));
  }
  size_t n = loop.members.size();
  std::vector<std::pair<double, double>> gains(n, {100, -100});
  loop.busy_now_lo = loop.busy_after_lo = 1;
  loop.busy_now_hi = loop.busy_after_hi = 0;
  // Which intervals any member reads and are not exact: only those have corners.
  std::vector<int> wide;
  for (int i = 0; i < kIntervals; ++i)
    for (size_t k = 0; k < n; ++k)
      if (model_reads(loop.members[k].model, i) && !interval_of(cp.work[k], i).is_exact()) {
        wide.push_back(i);
        break;
      }
  auto corners = [&](int held, auto&& visit) {
    std::vector<int> free;
    for (int i : wide)
      if (i != held) free.push_back(i);
    for (unsigned bits = 0; bits < (1u << free.size()); ++bits) {
      int mode[kIntervals] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int i = 0; i < kIntervals; ++i) mode[i] = 2;
      for (size_t j = 0; j < free.size(); ++j) mode[free[j]] = (bits >> j) & 1;
      visit(cp.eval(mode));
    }
  };
  double gain_lo = 1, gain_hi = 0;
  corners(-1, [&](const Composer::Corner& c) {
    double now = Composer::busy(c.gpu, cp.host_ms(c.now) + c.other);
    double after = Composer::busy(c.gpu, cp.host_ms(cp.fixed(c)) + c.other);
    loop.busy_now_lo = std::min(loop.busy_now_lo, now);
    loop.busy_now_hi = std::max(loop.busy_now_hi, now);
    loop.busy_after_lo = std::min(loop.busy_after_lo, after);
    loop.busy_after_hi = std::max(loop.busy_after_hi, after);
    gain_lo = std::min(gain_lo, after - now);
    gain_hi = std::max(gain_hi, after - now);
    auto g = cp.attribute(c);
    for (size_t k = 0; k < n; ++k) {
      gains[k].first = std::min(gains[k].first, 100 * g[k]);
      gains[k].second = std::max(gains[k].second, 100 * g[k]);
    }
  });
  for (auto& g : gains) {
    g.first = std::clamp(g.first, 0.0, 100.0);
    g.second = std::clamp(g.second, g.first, 100.0);
  }
  const int mids[kIntervals] = {2, 2, 2, 2, 2, 2, 2, 2};
  auto mid = cp.eval(mids);
  fill_breakdown(cp, mid.now, mid.gpu, mid.other, loop.now);
  fill_breakdown(cp, cp.fixed(mid), mid.gpu, mid.other, loop.after);
  // The assumption that dominates the width: the one whose midpoint narrows the loop's gain most.
  loop.dominant.clear();
  double full = gain_hi - gain_lo, best = 0;
  for (int i : wide) {
    double lo = 1, hi = 0;
    corners(i, [&](const Composer::Corner& c) {
      double g = Composer::busy(c.gpu, cp.host_ms(cp.fixed(c)) + c.other) -
                 Composer::busy(c.gpu, cp.host_ms(c.now) + c.other);
      lo = std::min(lo, g);
      hi = std::max(hi, g);
    });
    double narrowed = full - std::max(0.0, hi - lo);
    if (narrowed > best + 1e-9) {
      best = narrowed;
      for (size_t k = 0; k < n; ++k)
        if (model_reads(loop.members[k].model, i) && !interval_of(cp.work[k], i).is_exact()) {
          loop.dominant = std::string(kIntervalNames[i]) + "=" + fmt(interval_of(cp.work[k], i)) + kIntervalUnits[i] +
                          " (default)";
          break;
        }
    }
  }
  return gains;
}

void attach_impact(AnalysisResult& result, const Settings& settings) {
  std::vector<Diagnostic> all = result.diagnostics;
  attach_impact(result, settings, all);
}

namespace {
void attach_standalone(AnalysisResult& result, const Settings& settings, const HardwareProfile* hw) {
  const RuleRegistry& rules = RuleRegistry::builtin();
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

// Writes a loop's member gains into its reported diagnostics.
void write_gains(AnalysisResult& result, const LoopStep& loop, const std::vector<std::pair<double, double>>& gains,
                 const MeasuredStep* measured) {
  size_t others = loop.members.size() - 1;
  const auto shares = measured && measured->full() ? measured_shares(loop, *measured)
                                                   : std::vector<std::optional<double>>(loop.members.size());
  for (size_t k = 0; k < loop.members.size(); ++k) {
    int di = loop.members[k].diagnostic;
    if (di < 0 || di >= static_cast<int>(result.diagnostics.size())) continue;
    auto& impact = result.diagnostics[di].impact;
    if (!impact || impact->model == "none") continue;
    impact->gain_low = gains[k].first;
    impact->gain_high = gains[k].second;
    std::erase_if(impact->assumptions, [](const std::string& a) {
      return a.rfind("step model:", 0) == 0 || a.rfind("measured:", 0) == 0;
    });
    std::string where = loop.loop_offset >= 0 ? "its hot loop" : "the file's other findings";
    impact->assumptions.push_back("step model: composed with " + std::to_string(others) + " other finding" +
                                  (others == 1 ? "" : "s") + " of " + where +
                                  (loop.dominant.empty() ? std::string() : "; width mostly from " + loop.dominant));
    if (measured && measured->full()) {
      // The assumptions the trace replaced say so; the finding's own measured term, or that
      // nothing was joined to it.
      const std::string from = measured->source.empty() ? "the trace" : measured->source;
      for (auto& a : impact->assumptions) {
        if (a.rfind("T_gpu=", 0) == 0)
          a = "T_gpu=" + fmt(*measured->gpu_ms) + " ms/step (measured: " + from +
              (measured->gpu_events ? ", GPU busy per step)" : "; no GPU events: the step less its host waits)");
        else if (measured->load_ms && a.rfind("T_load=", 0) == 0)
          a = "T_load=" + fmt(*measured->load_ms) + " ms/batch on one process (measured: " + from + ")";
      }
      std::string m = "measured: step " + fmt(*measured->step_ms) + " ms, GPU " + fmt(*measured->gpu_ms) + " ms";
      if (shares[k]) {
        m += "; this finding's wait " + fmt(*shares[k]) + " ms/step";
        std::set<std::string> what;
        for (const auto& w : measured->waits)
          if (std::find(w.members.begin(), w.members.end(), k) != w.members.end() && !w.what.empty())
            what.insert(w.what);
        if (!what.empty()) {
          m += " (";
          size_t i = 0;
          for (const auto& x : what) m += (i++ ? ", " : "") + x;
          m += ")";
        }
      } else {
        m += "; nothing in the trace joined to this finding: modelled within the idle time the trace leaves "
             "unexplained";
      }
      impact->assumptions.push_back(m);
    } else if (measured) {
      std::string m = "measured:";
      if (measured->step_ms) m += " step " + fmt(*measured->step_ms) + " ms";
      if (measured->gpu_ms) m += " GPU " + fmt(*measured->gpu_ms) + " ms";
      if (measured->load_ms) m += " load " + fmt(*measured->load_ms) + " ms";
      impact->assumptions.push_back(m);
    }
  }
}

}  // namespace

void attach_impact(AnalysisResult& result, const Settings& settings, const std::vector<Diagnostic>& all) {
  const HardwareProfile* hw = find_profile(settings.gpu);
  if (!hw) hw = find_profile("generic");
  attach_standalone(result, settings, hw);
  const RuleRegistry& rules = RuleRegistry::builtin();
  // Members per loop, from every finding; the reported ones are matched by code and position.
  std::map<std::string, size_t> by_key;
  result.loops.clear();
  std::vector<char> taken(result.diagnostics.size(), 0);
  for (const auto& d : all) {
    const RuleInfo* info = rules.find(d.code);
    if (!info || info->impact_model.empty() || info->impact_model == "none") continue;
    const auto& names = impact_model_names();
    if (std::find(names.begin(), names.end(), info->impact_model) == names.end()) continue;
    StepMember m;
    m.code = d.code;
    m.model = info->impact_model;
    m.offset = d.range.start;
    m.facts = d.facts;
    for (size_t i = 0; i < result.diagnostics.size(); ++i) {
      const Diagnostic& r = result.diagnostics[i];
      if (taken[i] || r.code != d.code || r.range.start != d.range.start || r.range.end != d.range.end ||
          r.file != d.file || r.message != d.message)
        continue;
      taken[i] = 1;
      m.reported = true;
      m.diagnostic = static_cast<int>(i);
      break;
    }
    auto loop = fact_text(d.facts, "loop");
    std::string key = loop ? "loop:" + *loop : "file";
    auto [it, fresh] = by_key.try_emplace(key, result.loops.size());
    if (fresh) {
      LoopStep l;
      l.key = key;
      if (loop) {
        char* end = nullptr;
        long long off = std::strtoll(loop->c_str(), &end, 10);
        l.loop_offset = end && *end == '\0' && off >= 0 ? off : -1;
      }
      result.loops.push_back(std::move(l));
    }
    result.loops[it->second].members.push_back(std::move(m));
  }
  // Loops with a reported finding only; in source order ("file" last).
  std::erase_if(result.loops, [](const LoopStep& l) {
    return std::none_of(l.members.begin(), l.members.end(), [](const StepMember& m) { return m.reported; });
  });
  std::stable_sort(result.loops.begin(), result.loops.end(), [](const LoopStep& a, const LoopStep& b) {
    auto k = [](const LoopStep& l) { return l.loop_offset < 0 ? INT64_MAX : l.loop_offset; };
    return k(a) < k(b);
  });
  for (auto& loop : result.loops) write_gains(result, loop, compose_loop(loop, *hw, settings), nullptr);
}

void apply_measurement(AnalysisResult& result, size_t loop, const MeasuredStep& m, const Settings& settings) {
  if (loop >= result.loops.size()) return;
  const HardwareProfile* hw = find_profile(settings.gpu);
  if (!hw) hw = find_profile("generic");
  write_gains(result, result.loops[loop], compose_loop(result.loops[loop], *hw, settings, &m), &m);
}

ProjectBusy combine_loops(const std::vector<const LoopStep*>& loops) {
  ProjectBusy p;
  double gpu = 0, now = 0, after = 0, now_lo = 0, now_hi = 0, after_lo = 0, after_hi = 0;
  for (const LoopStep* l : loops) {
    if (!l) continue;
    ++p.loops;
    p.profile = l->profile;
    double g = l->now.gpu_ms;
    gpu += g;
    now += l->now.step_ms();
    after += l->after.step_ms();
    // Steps at the ends of each loop's range, in units of its midpoint GPU time.
    auto step_at = [&](double busy) { return busy > 0 ? g / busy : g * 1000; };
    now_lo += step_at(l->busy_now_lo);
    now_hi += step_at(l->busy_now_hi);
    after_lo += step_at(l->busy_after_lo);
    after_hi += step_at(l->busy_after_hi);
  }
  if (!p.loops || gpu <= 0) return p;
  p.now = gpu / now;
  p.after = gpu / after;
  p.now_lo = gpu / now_lo;
  p.now_hi = gpu / now_hi;
  p.after_lo = gpu / after_lo;
  p.after_hi = gpu / after_hi;
  return p;
}

ProjectBusy file_busy(const AnalysisResult& result) {
  std::vector<const LoopStep*> loops;
  for (const auto& l : result.loops) loops.push_back(&l);
  return combine_loops(loops);
}

}  // namespace stoker
