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
  // Configuration (core/config.h). `per_file_ignores` maps a glob to codes; the resolver has
  // already merged the entries matching a file into `rules.ignore` when settings reach analyze().
  std::vector<std::pair<std::string, std::vector<std::string>>> per_file_ignores;
  std::vector<std::string> exclude;         // globs; replace the (empty) default
  std::vector<std::string> extend_exclude;  // globs added to `exclude`
  std::string config_file;  // the file these settings came from; empty: built-in defaults
  std::string config_root;  // directory that relative globs and paths are relative to
  // Suppression comments (core/suppression.h): report those that suppress nothing (ST001).
  bool report_unused_ignores = false;
  bool show_parse_errors = false;     // list every clang error instead of one notice per file
  std::string cxx_default_workers = "4";  // workers written by the LibTorch DL001 fix
  // Python: work units (resolution steps) one file may spend before its analysis stops with
  // "analysis stopped: budget exceeded". A safety net, never the mechanism; 0 = unlimited.
  unsigned long long analysis_budget = 10'000'000;
  // The PyTorch release the code targets, "MAJOR.MINOR" (`target-torch-version`): rules whose
  // advice follows a changed default (GU009 foreach, GU011 zero_grad) read it. Empty: the
  // project's declared torch requirement (core/torch_version.h), else the newest supported.
  std::string target_torch_version;
};

}  // namespace stoker
