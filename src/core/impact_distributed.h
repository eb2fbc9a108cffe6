// The impact models of the distributed-training rules (DD): what a step spends in gradient
// all-reduces that the fix removes or shortens. Plain functions over the Workload, evaluated at
// the corners of their intervals as impact.cpp's models are; docs/impact-model.md states the
// formulas, defaults and sources. impact.cpp dispatches to these by model name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/impact.h"

namespace stoker {

// allreduce-per-microstep (DD001), unused-parameter-search (DD002), slow-collective (DD003, DD005).
const std::vector<std::string>& distributed_model_names();
bool is_distributed_model(std::string_view model);

// Idle fractions of one point. `s`: share of a micro-step that the gradient all-reduce adds
// (exposed, not overlapped with compute) on the fast transport; `k`: micro-steps per optimizer
// step; `r`: how many times slower the collectives run as written; `t_host_ms`: serial host
// work per step before the backward can start.
Idle allreduce_per_microstep(double s, double k);
Idle slow_collective(double s, double r);
Idle unused_parameter_search(double t_host_ms, double t_gpu_ms);

std::optional<IdleRange> evaluate_distributed_model(std::string_view model, const HardwareProfile& hw, const Workload& w);
// The assumptions the model used, for Impact::assumptions.
std::vector<std::string> distributed_assumptions(std::string_view model, const Workload& w);

}  // namespace stoker
