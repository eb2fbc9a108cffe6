// The `compute-speedup` impact model of the GU rules: a fix that makes part of the step's GPU
// work faster (TF32, mixed precision, the cuDNN autotuner, multi-tensor optimizers...) rather
// than filling idle time. With a share s of the step time in the work the fix speeds up and a
// speedup k of that work on the GPU profile, the step time saved is s * (1 - 1/k); that
// fraction, in percentage points, is the gain. Each rule's s and k, with their sources, are one
// row of the table in compute_speedup.cpp (docs/impact-model.md lists them).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/diagnostic.h"
#include "core/impact.h"

namespace stoker {

struct ComputeSpeedupRow {
  std::string_view code;           // GU003
  double share_lo, share_hi;       // of the step's GPU time in the affected work
  double speedup_lo, speedup_hi;   // of that work after the fix (>= 1; 0 = the work disappears)
  std::string_view share_source;   // where the share comes from ("default assumption"...)
  std::string_view speedup_source; // the measured figure and its document
};

const ComputeSpeedupRow* compute_speedup_row(std::string_view code);

// The estimate for a GU finding on a profile; nullopt for a code without a row. With
// `kind_resolved` false (the model's kind is not resolved, so the work the fix speeds up may be
// absent) the low end is 0 and an assumption says so.
std::optional<Impact> compute_speedup_impact(std::string_view code, const HardwareProfile& hw,
                                             bool kind_resolved = true);

// How an estimate's gain reads. A compute speedup leaves the GPU as busy as before and makes
// the step shorter: its gain is step time saved, in percent of today's step ("step time
// -7..57%"); every other model recovers idle time, in percentage points of GPU busy time
// ("+3..12 pp GPU busy").
bool gain_is_step_time(const Impact& impact);
// The unit for machine-readable output: "step-time-pct" or "gpu-busy-pp".
std::string_view gain_unit(const Impact& impact);
// Short form for rankings: "+3..12 pp" / "step -7..57%" (under half a point: "under 1 pp" /
// "step under 1%").
std::string gain_short(const Impact& impact);
// Sentence form: "+3..12 pp GPU busy" / "step time -7..57% (faster GPU work; the GPU is busy either
// way)".
std::string gain_long(const Impact& impact);

}  // namespace stoker
