// The stoker command line: check, rule, config, server, version.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <optional>

#include "core/config.h"
#include "core/impact.h"
#include "core/rules.h"
#include "core/runner.h"
#include "core/suppression.h"
#include "fix/fix_files.h"
#include "fix/notebook_fix.h"
#include "lsp/server.h"
#include "output/impact_json.h"
#include "output/report.h"

using namespace stoker;

namespace {

std::vector<std::string> split_codes(const std::vector<std::string>& in) {
  std::vector<std::string> out;
  for (const auto& s : in) {
    size_t start = 0;
    while (start <= s.size()) {
      size_t comma = s.find(',', start);
      std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!item.empty()) out.push_back(item);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

int print_rule(const RuleRegistry& rules, const std::string& code, bool all) {
  if (all) {
    for (const auto& r : rules.all())
      std::cout << r.code << "\t" << r.name << "\t" << to_string(r.severity) << "\tfix: " << r.fix << "\t"
                << r.summary << "\n";
    return 0;
  }
  const RuleInfo* info = rules.find(code);
  if (!info) {
    std::cerr << "stoker: unknown rule code `" << code << "` (see `stoker rule --all`)\n";
    return 2;
  }
  std::cout << "# " << info->name << " (" << info->code << ")\n\n"
            << "Family: " << info->family << " | Severity: " << to_string(info->severity)
            << " | Languages: ";
  for (size_t i = 0; i < info->languages.size(); ++i) std::cout << (i ? ", " : "") << info->languages[i];
  std::cout << " | Fix: " << info->fix << " | Impact model: " << info->impact_model << "\n\n" << info->document;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"stoker: finds the code that leaves your GPU waiting, and fixes it"};
  app.require_subcommand(1);
  const RuleRegistry& rules = RuleRegistry::builtin();

  auto* check = app.add_subcommand("check", "Analyze Python and C++/CUDA files for GPU starvation patterns");
  std::vector<std::string> paths, select, ignore, extend_select;
  std::string format = "text";
  bool statistics = false, exit_zero = false, no_color = false;
  bool report_unused_ignores = false, add_ignore = false, force_exclude = false;
  std::string config_file;
  unsigned threads = 0;
  check->add_option("paths", paths, "Files or directories to analyze (default: .)");
  check->add_option("--select", select, "Rule codes or prefixes to enable (comma-separated)");
  check->add_option("--extend-select", extend_select, "Rule codes or prefixes to enable in addition");
  check->add_option("--ignore", ignore, "Rule codes or prefixes to disable (comma-separated)");
  check->add_option("--output-format", format, "Output format (default: $STOKER_OUTPUT_FORMAT or text)")
      ->envname("STOKER_OUTPUT_FORMAT")
      ->check(CLI::IsMember({"text", "concise", "json", "sarif", "github", "gitlab", "junit"}));
  check->add_option("--config", config_file, "Use this configuration file for every file (no discovery)")
      ->check(CLI::ExistingFile);
  check->add_flag("--report-unused-ignores", report_unused_ignores,
                  "Report suppression comments that suppress nothing (ST001)");
  check->add_flag("--add-ignore", add_ignore,
                  "Add a `stoker: ignore[...]` comment for every current finding (to adopt stoker)");
  check->add_flag("--force-exclude", force_exclude,
                  "Apply the configuration's exclude globs to files named on the command line too");
  check->add_flag("--statistics", statistics, "Show counts for every rule with findings");
  check->add_flag("--exit-zero", exit_zero, "Exit with 0 even when findings are reported");
  check->add_flag("--no-color", no_color, "Never color the output");
  check->add_option("--threads", threads, "Worker threads (default: all cores)");
  bool do_fix = false, unsafe_fixes = false, do_diff = false, show_fixes = false;
  std::string gpu;
  std::vector<std::string> workload_kv;
  check->add_flag("--fix", do_fix, "Apply safe fixes");
  check->add_flag("--unsafe-fixes", unsafe_fixes, "Also apply unsafe fixes (with --fix or --diff)");
  check->add_flag("--diff", do_diff, "Print the fixes as a unified diff and write nothing (exit 1 if there are any)");
  check->add_flag("--show-fixes", show_fixes, "List the fixes applied");
  check->add_option("--gpu", gpu, "Hardware profile for impact estimates (h100-sxm, a100-pcie, ..., generic)");
  check->add_option("--workload", workload_kv,
                    "Override an impact-model assumption: step-time-ms=, load-time-ms=, batch-bytes=, workers=")
      ->allow_extra_args(false);

  auto* impact_cmd = app.add_subcommand("impact", "Evaluate one impact model for given numbers (JSON)");
  std::string impact_model, impact_gpu = "generic";
  std::vector<std::string> impact_workload, impact_facts;
  impact_cmd->add_option("model", impact_model, "Model name, e.g. serial-loader")->required();
  impact_cmd->add_option("--gpu", impact_gpu, "Hardware profile");
  impact_cmd->add_option("--workload", impact_workload, "step-time-ms=, load-time-ms=, batch-bytes=, workers=")
      ->allow_extra_args(false);
  impact_cmd->add_option("--fact", impact_facts, "A resolved fact, e.g. batch_size=64, num_workers=0")
      ->allow_extra_args(false);
  std::string compile_commands_dir, cuda_path;
  bool show_parse_errors = false;
  check->add_option("-p,--build-path", compile_commands_dir,
                    "C++: directory with compile_commands.json (default: found upwards from each file)");
  check->add_option("--cuda-path", cuda_path, "C++: parse CUDA files against this toolkit's headers (toolkit mode)");
  check->add_flag("--show-parse-errors", show_parse_errors, "C++: list every error clang reports");

  auto* rule = app.add_subcommand("rule", "Explain a rule");
  std::string rule_code;
  bool rule_all = false;
  rule->add_option("code", rule_code, "Rule code, e.g. DL001");
  rule->add_flag("--all", rule_all, "List every rule");

  app.add_subcommand("version", "Print the version");

  auto* server = app.add_subcommand("server", "Run the language server (LSP over stdin/stdout)");
  bool stdio = true;
  server->add_flag("--stdio", stdio, "Use stdin/stdout (the default and only transport)");

  auto* config_cmd = app.add_subcommand("config", "Show the effective configuration");
  std::string config_for = ".";
  bool config_show = false;
  config_cmd->add_flag("--show", config_show, "Print the effective configuration for FILE (default: .)");
  config_cmd->add_option("file", config_for, "The file (or directory) whose configuration to show");
  config_cmd->add_option("--config", config_file, "Use this configuration file instead of discovery")
      ->check(CLI::ExistingFile);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  if (app.got_subcommand("version")) {
    std::cout << "stoker " << STOKER_VERSION << "\n";
    return 0;
  }
  if (app.got_subcommand(server)) {
    int rc = lsp::serve_stdio();
    std::cout.flush();
    std::_Exit(rc);  // the stdin reader may still be blocked in read(); do not wait for it
  }
  if (app.got_subcommand(rule)) {
    if (!rule_all && rule_code.empty()) {
      std::cerr << "stoker rule: give a rule code or --all\n";
      return 2;
    }
    return print_rule(rules, rule_code, rule_all);
  }

  if (app.got_subcommand(config_cmd)) {
    ConfigResolver resolver(config_file.empty() ? std::nullopt : std::optional(config_file), {});
    // For a directory, the configuration of a file inside it.
    std::string probe = std::filesystem::is_directory(config_for) ? config_for + "/__stoker__.py" : config_for;
    Settings s = resolver.settings_for(probe);
    for (const auto& e : resolver.errors()) {
      std::cerr << "stoker: configuration error: " << e.describe() << "\n";
      return 2;
    }
    write_effective_config(std::cout, s, config_for);
    return 0;
  }

  auto parse_kv = [](const std::vector<std::string>& items, std::vector<std::pair<std::string, std::string>>& out) {
    for (const auto& kv : items) {
      auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::cerr << "stoker: expected KEY=VALUE, got `" << kv << "`\n";
        return false;
      }
      out.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    return true;
  };
  auto set_hints = [&](const std::vector<std::string>& items, Settings& s) {
    std::vector<std::pair<std::string, std::string>> kvs;
    if (!parse_kv(items, kvs)) return false;
    for (const auto& [k, v] : kvs) {
      std::string error;
      if (!set_workload_hint(s.workload, k, v, error)) {
        std::cerr << "stoker: " << error << "\n";
        return false;
      }
    }
    return true;
  };
  auto known_profile = [](const std::string& name) {
    if (find_profile(name)) return true;
    std::cerr << "stoker: unknown GPU profile `" << name << "` (known:";
    for (const auto& p : hardware_profiles()) std::cerr << " " << p.name;
    std::cerr << ")\n";
    return false;
  };

  if (app.got_subcommand(impact_cmd)) {
    Settings s;
    s.gpu = impact_gpu;
    std::vector<std::pair<std::string, std::string>> facts;
    if (!known_profile(impact_gpu) || !set_hints(impact_workload, s) || !parse_kv(impact_facts, facts)) return 2;
    std::string json, error;
    if (!output::impact_json(impact_model, s, facts, json, error)) {
      std::cerr << "stoker impact: " << error << "\n";
      return 2;
    }
    std::cout << json << "\n";
    return 0;
  }

  Settings settings;
  if ((!gpu.empty() && !known_profile(gpu)) || !set_hints(workload_kv, settings)) return 2;
  if (!gpu.empty()) settings.gpu = gpu;
  auto sel = split_codes(select), ext = split_codes(extend_select), ign = split_codes(ignore);
  for (const auto* list : {&sel, &ext, &ign})
    for (const auto& code : *list)
      if (!rules.is_valid_selector(code)) {
        std::cerr << "stoker: unknown rule selector `" << code << "`\n";
        return 2;
      }
  if (!sel.empty()) settings.rules.select = sel;
  settings.rules.extend_select = ext;
  settings.rules.ignore = ign;
  if (!compile_commands_dir.empty()) {
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::path(compile_commands_dir) / "compile_commands.json", ec)) {
      std::cerr << "stoker: no compile_commands.json in `" << compile_commands_dir << "`\n";
      return 2;
    }
  }
  if (!cuda_path.empty() && !std::filesystem::exists(std::filesystem::path(cuda_path) / "include" / "cuda_runtime.h")) {
    std::cerr << "stoker: `" << cuda_path << "` is not a CUDA toolkit (no include/cuda_runtime.h)\n";
    return 2;
  }
  settings.compile_commands_dir = compile_commands_dir;
  settings.cuda_path = cuda_path;
  settings.show_parse_errors = show_parse_errors;

  CliOverrides overrides;
  if (!sel.empty()) overrides.select = sel;
  overrides.extend_select = ext;
  overrides.ignore = ign;
  if (report_unused_ignores) overrides.report_unused_ignores = true;
  if (!gpu.empty()) overrides.gpu = gpu;
  if (!workload_kv.empty()) overrides.workload = settings.workload;
  if (!compile_commands_dir.empty()) overrides.compile_commands_dir = compile_commands_dir;
  if (!cuda_path.empty()) overrides.cuda_path = cuda_path;
  overrides.show_parse_errors = show_parse_errors;
  ConfigResolver resolver(config_file.empty() ? std::nullopt : std::optional(config_file), overrides);

  RunOptions run;
  run.paths = paths.empty() ? std::vector<std::string>{"."} : paths;
  run.threads = threads;
  run.settings_for = [&](const std::string& path) { return resolver.settings_for(path); };
  run.exclude = [&](const std::string& path) { return resolver.excluded(path); };
  if (force_exclude)
    std::erase_if(run.paths, [&](const std::string& p) { return std::filesystem::is_regular_file(p) && resolver.excluded(p); });
  Report report = run.paths.empty() ? Report{} : run_analysis(run, settings);
  if (auto errors = resolver.errors(); !errors.empty()) {
    for (const auto& e : errors) std::cerr << "stoker: configuration error: " << e.describe() << "\n";
    return 2;
  }
  if (add_ignore) {
    size_t added = 0, files = 0, skipped = 0;
    for (const auto& f : report.files) {
      std::string error;
      size_t n = 0, s = 0;
      bool ok = f.source->notebook ? fix::write_notebook_ignore_comments(*f.source, f.result.diagnostics, n, s, error)
                                   : write_ignore_comments(*f.source, f.result.diagnostics, n, s, error);
      if (!ok) {
        std::cerr << f.source->path << ": error: " << error << "\n";
        return 2;
      }
      added += n, skipped += s, files += n > 0;
    }
    std::cout << "Added " << added << " suppression comment" << (added == 1 ? "" : "s") << " in " << files << " file"
              << (files == 1 ? "" : "s") << ".\n";
    if (skipped) std::cout << skipped << " finding(s) could not take a trailing comment (string or continuation).\n";
    return report.errors.empty() ? 0 : 2;
  }

  std::optional<fix::FixRunSummary> fixed_summary;
  if (do_diff || do_fix) {
    fix::FixRunOptions fopts;
    fopts.unsafe = unsafe_fixes;
    fopts.write = !do_diff;
    auto summary = fix::fix_report(report, [&](const std::string& path) { return resolver.settings_for(path); }, fopts);
    if (do_diff) {
      fix::write_diffs(std::cout, summary);
      for (const auto& f : summary.files)
        if (!f.error.empty()) std::cerr << f.path << ": fix not applied: " << f.error << "\n";
      if (show_fixes) fix::write_applied_fixes(std::cerr, summary, true);
      else if (summary.applied())
        std::cerr << "Would fix " << summary.applied() << " finding" << (summary.applied() == 1 ? "" : "s") << ".\n";
      if (!report.errors.empty()) return 2;
      return summary.changed_files() ? 1 : 0;
    }
    fixed_summary = std::move(summary);
  }


  if (format == "json" || format == "sarif" || format == "github" || format == "gitlab" || format == "junit") {
    if (format == "json") output::write_json(std::cout, report, rules);
    else if (format == "sarif") output::write_sarif(std::cout, report, rules);
    else if (format == "github") output::write_github(std::cout, report, rules);
    else if (format == "gitlab") output::write_gitlab(std::cout, report, rules);
    else output::write_junit(std::cout, report, rules);
    for (const auto& e : report.errors) std::cerr << e.file << ": error: " << e.message << "\n";
    for (const auto& w : report.warnings) std::cerr << w.file << ": warning: " << w.message << "\n";
    for (const auto& f : report.files)
      for (const auto& n : f.result.notices) std::cerr << n.file << ": notice: " << n.message << "\n";
  } else {
    TextOptions opts;
    opts.color = !no_color && isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR");
    opts.show_source = format == "text";
    opts.statistics = statistics;
    output::write_text(std::cout, report, rules, opts);
  }
  if (fixed_summary) {
    std::ostream& human = format == "json" ? std::cerr : std::cout;
    if (show_fixes) fix::write_applied_fixes(human, *fixed_summary, false);
    else if (report.fixed) human << "Fixed " << report.fixed << " finding" << (report.fixed == 1 ? "" : "s") << ".\n";
  }
  bool any = false;
  for (const auto& f : report.files) any |= !f.result.diagnostics.empty();
  if (!report.errors.empty()) return 2;
  return (any && !exit_zero) ? 1 : 0;
}
