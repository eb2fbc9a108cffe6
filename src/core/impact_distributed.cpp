#include "core/impact_distributed.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace stoker {

namespace {

// Exposed all-reduce share of a (micro-)step on NCCL: from 5% (one node, NVLink, most of the
// all-reduce overlapped with the backward) to 55%, Hugging Face Accelerate's multi-node figure
// (no_sync took a gradient-accumulation batch from 2.00 to 0.91 s: (2.00 - 0.91) / 2.00).
constexpr Interval kAllreduceShare{0.05, 0.55};
// Micro-steps per optimizer step when the accumulation period is not resolved.
constexpr Interval kAccumulation{2, 8};
// Host time of DDP's unused-parameter search: one traversal of the autograd graph per step,
// about 1e3..5e3 nodes at 0.5..1 us each (assumption; not measured here).
constexpr Interval kTraversalMs{0.5, 5.0};

// How many times slower collectives run as written than with the fast transport (assumptions,
// from link rates: NVLink 300+ GB/s per direction against a host-memory bounce over PCIe x16
// at 12..32 GB/s; InfiniBand HDR 25 GB/s against TCP over the same or slower Ethernet).
Interval slowdown(std::string_view kind) {
  if (kind == "gloo") return {3, 20};  // device-to-host copy, reduction on the CPU, TCP
  if (kind == "p2p") return {2, 8};
  if (kind == "ib") return {2, 10};
  if (kind == "shm") return {1.2, 2};
  return {1.2, 20};
}

std::string fact(const Workload& w, std::string_view key) {
  for (const auto& [k, v] : w.facts)
    if (k == key) return v;
  return {};
}
std::optional<double> fact_number(const Workload& w, std::string_view key) {
  std::string v = fact(w, key);
  if (v.empty()) return std::nullopt;
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (!end || *end != '\0' || !std::isfinite(x) || x < 1) return std::nullopt;
  return x;
}
Interval accumulation(const Workload& w) {
  if (auto k = fact_number(w, "accumulate_every")) return Interval::exact(*k);
  return kAccumulation;
}
std::string fmt(double x) {
  char buf[32];
  if (x >= 100 || x == std::floor(x)) std::snprintf(buf, sizeof buf, "%.0f", x);
  else if (x >= 1) std::snprintf(buf, sizeof buf, "%.1f", x);
  else std::snprintf(buf, sizeof buf, "%.2g", x);
  return buf;
}
std::string fmt(Interval i) { return i.is_exact() ? fmt(i.lo) : fmt(i.lo) + ".." + fmt(i.hi); }

Idle make(double now, double after) {
  now = std::clamp(now, 0.0, 1.0);
  return {now, std::clamp(after, 0.0, now)};
}

}  // namespace

const std::vector<std::string>& distributed_model_names() {
  static const std::vector<std::string> names = {"allreduce-per-microstep", "unused-parameter-search",
                                                 "slow-collective"};
  return names;
}

bool is_distributed_model(std::string_view model) {
  const auto& n = distributed_model_names();
  return std::find(n.begin(), n.end(), model) != n.end();
}

Idle allreduce_per_microstep(double s, double k) {
  // Per micro-step: compute 1 - s and an exposed all-reduce s. After the fix, k micro-steps
  // share one all-reduce: idle = s / (k (1 - s) + s).
  s = std::clamp(s, 0.0, 0.99);
  k = std::max(1.0, k);
  return make(s, s / (k * (1 - s) + s));
}

Idle slow_collective(double s, double r) {
  // Compute 1 - s, the collective s on the fast transport, r * s as written.
  s = std::clamp(s, 0.0, 0.99);
  r = std::max(1.0, r);
  return make(r * s / ((1 - s) + r * s), s);
}

Idle unused_parameter_search(double t_host_ms, double t_gpu_ms) {
  t_host_ms = std::max(0.0, t_host_ms);
  t_gpu_ms = std::max(1e-6, t_gpu_ms);
  return make(t_host_ms / (t_host_ms + t_gpu_ms), 0);
}

std::optional<IdleRange> evaluate_distributed_model(std::string_view model, const HardwareProfile&, const Workload& w) {
  if (!is_distributed_model(model)) return std::nullopt;
  Interval a, b;  // the model's two uncertain inputs
  if (model == "allreduce-per-microstep") {
    a = kAllreduceShare;
    b = accumulation(w);
  } else if (model == "slow-collective") {
    a = kAllreduceShare;
    b = slowdown(fact(w, "kind"));
  } else {
    a = kTraversalMs;
    b = w.t_gpu_ms;
  }
  IdleRange r{1, 0, 1, 0, 100, -100};
  for (int corner = 0; corner < 4; ++corner) {
    double x = corner & 1 ? a.hi : a.lo, y = corner & 2 ? b.hi : b.lo;
    Idle idle = model == "allreduce-per-microstep" ? allreduce_per_microstep(x, y)
                : model == "slow-collective"       ? slow_collective(x, y)
                                                   : unused_parameter_search(x, y);
    double gain = 100 * (idle.now - idle.after);
    r.now_lo = std::min(r.now_lo, idle.now);
    r.now_hi = std::max(r.now_hi, idle.now);
    r.after_lo = std::min(r.after_lo, idle.after);
    r.after_hi = std::max(r.after_hi, idle.after);
    r.gain_lo = std::min(r.gain_lo, gain);
    r.gain_hi = std::max(r.gain_hi, gain);
  }
  r.gain_lo = std::clamp(r.gain_lo, 0.0, 100.0);
  r.gain_hi = std::clamp(r.gain_hi, r.gain_lo, 100.0);
  return r;
}

std::vector<std::string> distributed_assumptions(std::string_view model, const Workload& w) {
  std::vector<std::string> out;
  if (model == "allreduce-per-microstep" || model == "slow-collective")
    out.push_back("exposed all-reduce share of a step on NCCL=" + fmt(kAllreduceShare) +
                  " (default; 0.55 from Accelerate's multi-node no_sync figure, 2.00 to 0.91 s per batch)");
  if (model == "allreduce-per-microstep") {
    Interval k = accumulation(w);
    out.push_back("micro-steps per optimizer step=" + fmt(k) + (k.is_exact() ? " (resolved)" : " (default)"));
  }
  if (model == "slow-collective") {
    std::string kind = fact(w, "kind");
    out.push_back("collectives " + fmt(slowdown(kind)) + "x slower as written (" +
                  (kind.empty() ? std::string("default") : "default for " + kind) + ", from link rates)");
  }
  if (model == "unused-parameter-search") {
    out.push_back("unused-parameter search=" + fmt(kTraversalMs) + " ms/step of host time (default)");
    for (const auto& a : w.assumptions)
      if (a.rfind("T_gpu", 0) == 0) out.push_back(a);
  }
  return out;
}

}  // namespace stoker
