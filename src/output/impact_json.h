// `stoker impact`: one impact-model evaluation as JSON, for calibration scripts and for users
// who want to see what a model predicts for their own numbers.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/settings.h"

namespace stoker::output {

// Returns false with `error` for an unknown model or profile.
bool impact_json(const std::string& model, const Settings& settings,
                 const std::vector<std::pair<std::string, std::string>>& facts, std::string& json, std::string& error);

}  // namespace stoker::output
