// Effective settings for analyzing one file. Built from defaults, configuration files and the
// command line (see core/config.h once configuration exists); passed down explicitly.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/rules.h"

namespace stoker {

struct WorkloadHints {
  std::optional<double> step_time_ms;
  std::optional<double> load_time_ms;
  std::optional<double> batch_bytes;
  std::optional<int> workers;
};

struct Settings {
  RuleSelection rules;
  int min_batch_size = 16;
  // Expression written by the DL001 fix for num_workers.
  std::string default_workers = "min(8, os.cpu_count() or 1)";
  std::string gpu = "generic";
  WorkloadHints workload;
  // C++ front end.
  std::string compile_commands_dir;   // -p
  std::vector<std::string> cxx_extra_args;
  std::string cuda_path;              // toolkit mode when non-empty
  bool show_parse_errors = false;     // list every clang error instead of one notice per file
  std::string cxx_default_workers = "4";  // workers written by the LibTorch DL001 fix
};

}  // namespace stoker
