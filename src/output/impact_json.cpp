#include "output/impact_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/impact.h"

namespace stoker::output {

bool impact_json(const std::string& model, const Settings& settings,
                 const std::vector<std::pair<std::string, std::string>>& facts, std::string& json, std::string& error) {
  const auto& models = impact_model_names();
  if (std::find(models.begin(), models.end(), model) == models.end()) {
    error = "unknown impact model `" + model + "`";
    return false;
  }
  const HardwareProfile* hw = find_profile(settings.gpu);
  if (!hw) {
    error = "unknown GPU profile `" + settings.gpu + "`";
    return false;
  }
  Workload w = make_workload(*hw, facts, settings);
  auto range = evaluate_model(model, *hw, w);
  auto impact = estimate_impact(model, *hw, w);
  if (!range || !impact) {
    error = "model `" + model + "` could not be evaluated";
    return false;
  }
  nlohmann::json j = {{"model", model},
                      {"profile", hw->name},
                      {"gain_pp", {impact->gain_low, impact->gain_high}},
                      {"idle_now", {range->now_lo, range->now_hi}},
                      {"idle_after", {range->after_lo, range->after_hi}},
                      {"assumptions", impact->assumptions}};
  json = j.dump(2);
  return true;
}

}  // namespace stoker::output
