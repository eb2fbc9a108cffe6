#include "core/compute_speedup.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace stoker {

namespace {

// speedup 0: the work is removed (a memset or a bias add that is not done at all).
constexpr ComputeSpeedupRow kRows[] = {
    {"GU001", 0.4, 0.9, 1.5, 3.0, "share of step time in matmul/conv work: 40-90% (default assumption)",
     "mixed precision: up to 3x on Volta and newer (PyTorch Performance Tuning Guide); 1.5x assumed as the low end"},
    {"GU002", 0.5, 0.9, 1.1, 2.4, "share of step time in convolutions: 50-90% (default assumption)",
     "cudnn.benchmark: 17 -> 12 min/epoch on V100 and 60 -> 25 min on 1080 Ti (a speech toolkit's pull request), "
     "2.00 -> 1.42 s/iteration (a vocoder's issue)"},
    {"GU003", 0.3, 0.8, 2.0, 6.9, "share of step time in fp32 matmuls: 30-80% (default assumption)",
     "TF32: a 10240x10240 fp32 matmul on A100 0.11 s -> 0.016 s (PyTorch CUDA semantics notes); 2x assumed for "
     "small matmuls"},
    {"GU004", 0.5, 1.0, 1.1, 2.0, "share of step time lost to DataParallel's per-step replication: 50-100% of "
     "the step (default assumption)",
     "DistributedDataParallel over DataParallel: 1.1-2x assumed (the tuning guide recommends DDP; no figure)"},
    {"GU005", 0.3, 0.6, 1.1, 1.5, "share of the evaluation step in the forward pass: 30-60% (default assumption)",
     "no autograd graph or saved activations: 1.1-1.5x assumed (no published figure)"},
    {"GU006", 0.5, 1.0, 1.2, 3.0, "share of the step under the debug API: 50-100% (default assumption)",
     "anomaly detection checks every backward op's output: 1.2-3x assumed (the autograd docs warn it slows "
     "execution; no figure)"},
    {"GU008", 0.01, 0.03, 0, 0, "share of step time in the redundant bias add and its gradient: 1-3% "
     "(default assumption)",
     "the bias add is removed"},
    {"GU009", 0.05, 0.25, 2.0, 4.2, "share of step time in the optimizer step: 5-25% (default assumption)",
     "foreach: Adam step 42.69 -> 10.16 ms (pytorch#45299)"},
    {"GU010", 0.5, 0.9, 1.1, 1.49, "share of step time in convolutions: 50-90% (default assumption)",
     "channels_last under AMP: 420 -> 627 images/s for NVIDIA's SSD on A100 (NVIDIA DeepLearningExamples)"},
    {"GU011", 0.005, 0.02, 0, 0, "share of step time in zeroing gradients: 0.5-2% (default assumption)",
     "set_to_none skips the memset (PyTorch Performance Tuning Guide)"},
    {"GU012", 0.5, 1.0, 1.05, 3.0, "share of the step affected: 50-100% (default assumption)",
     "synchronous launches or deterministic kernels: 1.05-3x assumed (no published figure)"},
    {"GU013", 0.1, 0.5, 1.05, 1.3, "share of step time in the misaligned matmul: 10-50% (default assumption)",
     "tensor-core-aligned dimensions: 1.05-1.3x assumed"},
};

std::string pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

double saved(double share, double speedup) { return speedup <= 0 ? share : share * (1 - 1 / std::max(1.0, speedup)); }

}  // namespace

const ComputeSpeedupRow* compute_speedup_row(std::string_view code) {
  for (const auto& r : kRows)
    if (r.code == code) return &r;
  return nullptr;
}

std::optional<Impact> compute_speedup_impact(std::string_view code, const HardwareProfile& hw, bool kind_resolved) {
  const ComputeSpeedupRow* r = compute_speedup_row(code);
  if (!r) return std::nullopt;
  // The figures were measured on Volta-or-newer GPUs with tensor cores, as every named profile
  // is; on an unknown GPU (`generic`) the fix may gain nothing.
  bool generic = hw.name == "generic";
  double k_lo = r->speedup_lo <= 0 ? 0 : generic ? 1.0 : r->speedup_lo;
  double lo = kind_resolved ? saved(r->share_lo, k_lo) : 0.0, hi = saved(r->share_hi, r->speedup_hi);
  Impact impact;
  impact.model = "compute-speedup";
  impact.profile = hw.name;
  impact.gain_low = std::clamp(100 * lo, 0.0, 100.0);
  impact.gain_high = std::clamp(100 * hi, impact.gain_low, 100.0);
  impact.idle_now = std::clamp((lo + hi) / 2, 0.0, 0.99);
  impact.idle_after = 0;
  impact.assumptions.push_back("step time saved = s * (1 - 1/k) of the work the fix speeds up");
  impact.assumptions.push_back("s: " + std::string(r->share_source));
  if (!kind_resolved)
    impact.assumptions.push_back("model kind not resolved in this file: the low end assumes none of this work (s = 0)");
  if (r->speedup_lo <= 0)
    impact.assumptions.push_back("k: " + std::string(r->speedup_source));
  else
    impact.assumptions.push_back("k=" + pct(k_lo) + ".." + pct(r->speedup_hi) + " on " + hw.name + ": " +
                                 std::string(r->speedup_source) +
                                 (generic ? " (unknown GPU: no gain at the low end)" : ""));
  return impact;
}

bool gain_is_step_time(const Impact& impact) { return impact.model == "compute-speedup"; }

std::string_view gain_unit(const Impact& impact) { return gain_is_step_time(impact) ? "step-time-pct" : "gpu-busy-pp"; }

namespace {
std::string range_text(const Impact& i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f..%.0f", i.gain_low, i.gain_high);
  return buf;
}
}  // namespace

std::string gain_short(const Impact& i) {
  if (gain_is_step_time(i)) return i.gain_high < 0.5 ? "step under 1%" : "step -" + range_text(i) + "%";
  return i.gain_high < 0.5 ? "under 1 pp" : "+" + range_text(i) + " pp";
}

std::string gain_long(const Impact& i) {
  if (gain_is_step_time(i))
    return (i.gain_high < 0.5 ? std::string("step time under 1% shorter") : "step time -" + range_text(i) + "%") +
           " (faster GPU work; the GPU is busy either way)";
  return i.gain_high < 0.5 ? "under 1 pp GPU busy" : "+" + range_text(i) + " pp GPU busy";
}

}  // namespace stoker
