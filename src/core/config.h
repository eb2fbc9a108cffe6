// Configuration files: `[tool.stoker]` in pyproject.toml, or stoker.toml / .stoker.toml (top-level
// keys), found upwards from each analyzed file; the nearest one wins, `--config FILE` overrides
// discovery. Read with toml++. Every problem (syntax, unknown key, wrong type, unknown rule code,
// unknown GPU profile) is a ConfigError with file, line and key: never a silent fallback.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rules.h"
#include "core/settings.h"

namespace stoker {

struct ConfigError : std::runtime_error {
  std::string file;
  uint32_t line = 0, column = 0;  // 1-based; 0 when unknown
  std::string key;                // dotted key, e.g. "tool.stoker.workload.step-time-ms"
  ConfigError(std::string file, uint32_t line, uint32_t column, std::string key, const std::string& message);
  // "pyproject.toml:12:1: `tool.stoker.selct`: unknown key (did you mean `select`?)"
  std::string describe() const;
};

// What the command line sets; applied on top of every file's configuration.
struct CliOverrides {
  std::optional<std::vector<std::string>> select;
  std::vector<std::string> extend_select;
  std::vector<std::string> ignore;
  std::optional<bool> report_unused_ignores;
  std::optional<std::string> gpu;                 // --gpu
  std::optional<WorkloadHints> workload;           // --workload KEY=VALUE (keys given replace)
  std::optional<std::string> compile_commands_dir; // -p
  std::optional<std::string> cuda_path;            // --cuda-path
  bool show_parse_errors = false;                  // --show-parse-errors
  std::optional<std::string> target_torch_version; // --target-torch-version
};

// GPU hardware profile names accepted by the `gpu` key (the impact model's table).
const std::vector<std::string>& known_gpu_profiles();

// Reads one configuration file into `base` (keys it sets replace those of `base`). For a
// pyproject.toml without [tool.stoker], returns nullopt. Throws ConfigError.
std::optional<Settings> load_config_file(const std::string& path, const Settings& base,
                                         const RuleRegistry& rules = RuleRegistry::builtin());
// The same from text already in memory (`path` names it in errors and decides the format).
std::optional<Settings> parse_config_text(const std::string& path, std::string_view text, const Settings& base,
                                          const RuleRegistry& rules = RuleRegistry::builtin());

// Matches a glob against a path relative to a configuration's directory: `*` and `?` stay
// within one path component, `**` spans components, `[...]` is a character class. A pattern
// without `/` matches any single component (`__pycache__`, `*_test.py`).
bool glob_match(std::string_view pattern, std::string_view relative_path);

// Finds and caches configuration per directory. Thread-safe: the runner calls it from workers.
// Errors are collected (first one per file), not thrown, so that a worker never dies; the CLI
// checks errors() after the run and exits 2.
class ConfigResolver {
 public:
  ConfigResolver(std::optional<std::string> explicit_config, CliOverrides overrides,
                 const RuleRegistry& rules = RuleRegistry::builtin());
  // Effective settings for a file: defaults, nearest configuration, command line, then the
  // per-file-ignores that match it.
  Settings settings_for(const std::string& path);
  // True when an `exclude`/`extend-exclude` glob of the configuration governing `path` matches.
  bool excluded(const std::string& path);
  std::vector<ConfigError> errors() const;
  // The configuration file governing `path` (empty when built-in defaults apply).
  std::string config_file_for(const std::string& path);

 private:
  std::shared_ptr<const Settings> for_directory(const std::string& abs_dir);
  std::shared_ptr<const Settings> load(const std::string& file);
  void record(const ConfigError& e);

  std::optional<std::string> explicit_;
  CliOverrides overrides_;
  const RuleRegistry& rules_;
  std::shared_ptr<const Settings> defaults_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Settings>> by_dir_;
  std::map<std::string, std::shared_ptr<const Settings>> by_file_;
  std::vector<ConfigError> errors_;
};

// `stoker config --show`: the effective configuration for a file, as TOML.
void write_effective_config(std::ostream& out, const Settings& settings, const std::string& for_path);

}  // namespace stoker
