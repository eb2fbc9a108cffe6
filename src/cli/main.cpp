// The stoker command line: check, rule, linter, config, impact, clean, server, version.
// Options follow ruff's where they overlap (docs/cli.md maps them one by one).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "cli/cache.h"
#include "cli/progress.h"
#include "core/config.h"
#include "core/discover.h"
#include "core/impact.h"
#include "core/rules.h"
#include "core/runner.h"
#include "core/suppression.h"
#include "core/torch_version.h"
#include "fix/diff.h"
#include "fix/fix_files.h"
#include "fix/fixer.h"
#include "output/paths.h"
#include "fix/notebook_fix.h"
#include "lsp/server.h"
#include "output/impact_json.h"
#include "output/report.h"
#include "trace/join.h"

using namespace stoker;
namespace fs = std::filesystem;

namespace {

// Rule selectors: each option value is one list, separated by commas or white space (as one
// quoted argument: `--select "SY, TX001"`). An option never takes the words after its value,
// so `--select SY train.py` selects SY in train.py (ruff's behaviour).
std::vector<std::string> split_codes(const std::vector<std::string>& in) {
  std::vector<std::string> out;
  for (const auto& s : in) {
    std::string item;
    for (char c : s + ",") {
      if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
        if (!item.empty()) out.push_back(item);
        item.clear();
      } else {
        item.push_back(c);
      }
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
  if (!info && (info = rules.redirect_target(code)))
    std::cout << code << " redirects to " << info->code << ": it is the same pattern, reported as " << info->code
              << " (`" << code << "` still selects, ignores and suppresses it).\n\n";
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

// `stoker linter`: the rule families (ruff's `ruff linter`), from the rule registry.
int print_linters(const RuleRegistry& rules, const std::string& format) {
  static const std::map<std::string, std::string> names{
      {"DL", "data loading: how batches are produced"},
      {"TX", "host/device transfers"},
      {"SY", "host/device synchronization inside hot loops"},
      {"BS", "batch size"},
      {"CU", "CUDA runtime API use in host code"},
      {"GU", "GPU compute utilization beyond starvation"},
      {"DD", "distributed training: communication and synchronization across GPUs"},
      {"ST", "stoker's own suppression comments"},
  };
  std::vector<std::string> order;
  std::map<std::string, std::vector<const RuleInfo*>> by_family;
  for (const auto& r : rules.all()) {
    if (!by_family.count(r.family)) order.push_back(r.family);
    by_family[r.family].push_back(&r);
  }
  // Redirected codes (GU007 -> DD001) belong to the family their prefix names.
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> redirects;
  for (const auto& r : rules.all())
    for (const auto& old : r.redirected_from) redirects[old.substr(0, 2)].emplace_back(old, r.code);
  if (format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& f : order) {
      nlohmann::json codes = nlohmann::json::array();
      for (const auto* r : by_family[f]) codes.push_back(r->code);
      auto n = names.find(f);
      nlohmann::json entry = {{"prefix", f}, {"name", n == names.end() ? f : n->second}, {"rules", codes}};
      if (redirects.count(f)) {
        entry["redirects"] = nlohmann::json::object();
        for (const auto& [old, to] : redirects[f]) entry["redirects"][old] = to;
      }
      out.push_back(entry);
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  for (const auto& f : order) {
    auto n = names.find(f);
    size_t k = by_family[f].size();
    std::cout << (f.size() < 4 ? std::string(4 - f.size(), ' ') : "") << f << " "
              << (n == names.end() ? f : n->second) << " (" << k << " rule" << (k == 1 ? "" : "s");
    for (const auto& [old, to] : redirects[f]) std::cout << "; " << old << " redirects to " << to;
    std::cout << ")\n";
  }
  return 0;
}

bool human_format(const std::string& format) { return format == "text" || format == "concise"; }

// Everything `stoker check` was given.
struct CheckArgs {
  std::vector<std::string> paths, select, ignore, extend_select, workload_kv;
  std::string target_torch_version;
  std::string format = "text", config_file, gpu, compile_commands_dir, cuda_path, stdin_filename, output_file;
  std::string cache_dir = ".stoker_cache";
  bool statistics = false, exit_zero = false, no_color = false, report_unused_ignores = false, add_ignore = false;
  bool force_exclude = false, do_fix = false, unsafe_fixes = false, do_diff = false, show_fixes = false;
  bool show_parse_errors = false, quiet = false, silent = false, fix_only = false, exit_non_zero_on_fix = false;
  bool show_files = false, show_settings = false, watch = false, no_cache = false, verbose = false;
  bool no_project = false;
  unsigned threads = 0;
  std::string profile_path;                        // --profile TRACE
  std::shared_ptr<const trace::Profile> profile;  // its measurement, read before the analysis
};

// What one run needs besides the arguments: the checked selectors and settings.
struct Prepared {
  Settings settings;
  CliOverrides overrides;
};

class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c == EOF ? 0 : c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

bool parse_kv(const std::vector<std::string>& items, std::vector<std::pair<std::string, std::string>>& out) {
  for (const auto& kv : items) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "stoker: expected KEY=VALUE, got `" << kv << "`\n";
      return false;
    }
    out.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return true;
}

bool set_hints(const std::vector<std::string>& items, Settings& s) {
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
}

bool known_profile(const std::string& name) {
  if (find_profile(name)) return true;
  std::cerr << "stoker: unknown GPU profile `" << name << "` (known:";
  for (const auto& p : hardware_profiles()) std::cerr << " " << p.name;
  std::cerr << ")\n";
  return false;
}

// Validates the options; false after printing why (exit 2).
bool prepare(const CheckArgs& a, const RuleRegistry& rules, Prepared& p) {
  Settings& settings = p.settings;
  if ((!a.gpu.empty() && !known_profile(a.gpu)) || !set_hints(a.workload_kv, settings)) return false;
  if (!a.gpu.empty()) settings.gpu = a.gpu;
  auto sel = split_codes(a.select), ext = split_codes(a.extend_select), ign = split_codes(a.ignore);
  for (const auto* list : {&sel, &ext, &ign})
    for (const auto& code : *list)
      if (const RuleInfo* to = rules.redirect_target(code)) {
        std::cerr << "stoker: warning: `" << code << "` has been remapped to `" << to->code << "`\n";
      } else if (!rules.is_valid_selector(code)) {
        std::cerr << "stoker: unknown rule selector `" << code << "`";
        std::error_code ec;
        if (fs::exists(code, ec)) std::cerr << " (a path? a selector option takes one comma-separated list of rule codes)";
        std::cerr << "\n";
        return false;
      }
  if (!a.select.empty() && sel.empty()) {
    std::cerr << "stoker: --select needs at least one rule code or prefix\n";
    return false;
  }
  if (!sel.empty()) settings.rules.select = sel;
  settings.rules.extend_select = ext;
  settings.rules.ignore = ign;
  if (!a.compile_commands_dir.empty()) {
    std::error_code ec;
    if (!fs::exists(fs::path(a.compile_commands_dir) / "compile_commands.json", ec)) {
      std::cerr << "stoker: no compile_commands.json in `" << a.compile_commands_dir << "`\n";
      return false;
    }
  }
  if (!a.cuda_path.empty() && !fs::exists(fs::path(a.cuda_path) / "include" / "cuda_runtime.h")) {
    std::cerr << "stoker: `" << a.cuda_path << "` is not a CUDA toolkit (no include/cuda_runtime.h)\n";
    return false;
  }
  settings.compile_commands_dir = a.compile_commands_dir;
  settings.cuda_path = a.cuda_path;
  settings.show_parse_errors = a.show_parse_errors;

  CliOverrides& o = p.overrides;
  if (!sel.empty()) o.select = sel;
  o.extend_select = ext;
  o.ignore = ign;
  if (a.report_unused_ignores) o.report_unused_ignores = true;
  if (!a.gpu.empty()) o.gpu = a.gpu;
  if (!a.workload_kv.empty()) o.workload = settings.workload;
  if (!a.compile_commands_dir.empty()) o.compile_commands_dir = a.compile_commands_dir;
  if (!a.cuda_path.empty()) o.cuda_path = a.cuda_path;
  if (!a.target_torch_version.empty()) {
    auto v = parse_torch_version(a.target_torch_version);
    if (!v) {
      std::cerr << "stoker: --target-torch-version: expected a PyTorch version MAJOR.MINOR such as 2.1, got `"
                << a.target_torch_version << "`\n";
      return false;
    }
    o.target_torch_version = v->str();
    settings.target_torch_version = v->str();
  }
  o.show_parse_errors = a.show_parse_errors;
  return true;
}

bool report_config_errors(const ConfigResolver& resolver) {
  auto errors = resolver.errors();
  for (const auto& e : errors) std::cerr << "stoker: configuration error: " << e.describe() << "\n";
  return !errors.empty();
}

size_t count_findings(const Report& r) {
  size_t n = 0;
  for (const auto& f : r.files) n += f.result.diagnostics.size();
  return n;
}

// Unsafe fixes that `--fix` leaves (without --unsafe-fixes).
size_t hidden_unsafe_fixes(const Report& r) {
  size_t n = 0;
  for (const auto& f : r.files)
    for (const auto& d : f.result.diagnostics)
      if (d.fix && d.fix->applicability == Applicability::Unsafe && !d.fix->edits.empty()) ++n;
  return n;
}

// Writes the findings of `report` in the chosen format to `out` (machine formats: the
// problems that are not findings go to stderr, so that `out` stays parseable).
void write_report(std::ostream& out, bool out_is_terminal, const Report& unjoined, const RuleRegistry& rules,
                  const CheckArgs& a, const std::function<Settings(const std::string&)>& settings_for) {
  // --profile: the trace's measurement joined to the findings about to be written, and the
  // measured step into the estimate of the loop it was joined to.
  Report joined;
  const Report* chosen = &unjoined;
  if (a.profile) {
    joined = unjoined;
    auto measured = std::make_shared<trace::MeasuredReport>(trace::join(*a.profile, unjoined, rules));
    trace::apply_to_estimates(*measured, joined, settings_for);
    joined.measured = std::move(measured);
    chosen = &joined;
  }
  const Report& report = *chosen;
  const std::string& format = a.format;
  if (!human_format(format)) {
    if (format == "json") output::write_json(out, report, rules);
    else if (format == "sarif") output::write_sarif(out, report, rules);
    else if (format == "github") output::write_github(out, report, rules);
    else if (format == "gitlab") output::write_gitlab(out, report, rules);
    else if (format == "html") output::write_html(out, report, rules);
    else output::write_junit(out, report, rules);
    if (a.silent) return;
    for (const auto& e : report.errors) std::cerr << e.file << ": error: " << e.message << "\n";
    for (const auto& w : report.warnings) std::cerr << w.file << ": warning: " << w.message << "\n";
    for (const auto& f : report.files)
      for (const auto& n : f.result.notices) std::cerr << n.file << ": notice: " << n.message << "\n";
    return;
  }
  TextOptions opts;
  opts.color = !a.no_color && out_is_terminal && !std::getenv("NO_COLOR");
  opts.show_source = format == "text";
  opts.statistics = a.statistics;
  opts.unsafe_fixes = a.unsafe_fixes;
  opts.summary = !a.quiet;
  output::write_text(out, report, rules, opts);
}

// The fix summary line, as ruff words it when fixing.
void write_fixed_line(std::ostream& out, size_t fixed, size_t hidden, bool would) {
  auto s = [](size_t n) { return n == 1 ? "" : "s"; };
  if (fixed) out << (would ? "Would fix " : "Fixed ") << fixed << " finding" << s(fixed);
  else out << (would ? "No findings would be fixed" : "No findings fixed");
  if (hidden) out << " (" << hidden << " additional fix" << (hidden == 1 ? "" : "es") << " available with `--unsafe-fixes`)";
  out << ".\n";
}

int exit_code(const CheckArgs& a, const Report& report, size_t fixes_applied) {
  if (!report.errors.empty()) return 2;
  if (a.exit_zero) return 0;
  if (a.exit_non_zero_on_fix && fixes_applied) return 1;
  if (a.fix_only) return 0;
  return count_findings(report) ? 1 : 0;
}

// `stoker check --stdin-filename NAME -`: the source comes from standard input; NAME decides the
// language and the configuration (and is the file name in the findings). With --fix, the fixed
// source goes to stdout and what remains to stderr, as ruff does.
int check_stdin(const CheckArgs& a, const RuleRegistry& rules, const Prepared& p, std::ostream& out) {
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  const std::string name = a.stdin_filename.empty() ? "-" : a.stdin_filename;
  const bool fixing = a.do_fix || a.fix_only;
  if (looks_binary(text) || first_invalid_utf8(text) != std::string::npos) {
    std::cerr << name << ": error: standard input is not UTF-8 text\n";
    if (fixing && !a.do_diff) std::cout << text;  // lose nothing: the input goes through unchanged
    return 2;
  }
  ConfigResolver resolver(a.config_file.empty() ? std::nullopt : std::optional(a.config_file), p.overrides);
  Settings settings = resolver.settings_for(name);
  if (report_config_errors(resolver)) {
    if (fixing && !a.do_diff) std::cout << text;
    return 2;
  }
  if (a.force_exclude && name != "-" && resolver.excluded(name)) {
    if (fixing && !a.do_diff) std::cout << text;
    return 0;
  }
  auto make_source = [&](const std::string& t) {
    auto src = std::make_shared<SourceFile>(name, t);
    if (src->language == Language::Unknown) src->language = Language::Python;  // `-` without a name
    return src;
  };
  auto source = make_source(text);
  auto make_report = [&](std::shared_ptr<SourceFile> src, AnalysisResult result) {
    Report r;
    r.files_analyzed = 1;
    r.analyzed_files = {name};
    if (!result.diagnostics.empty() || !result.notices.empty()) r.files.push_back(FileReport{src, std::move(result)});
    return r;
  };
  AnalysisResult initial = analyze(*source, settings);
  if (!fixing && !a.do_diff) {
    Report report = make_report(source, std::move(initial));
    write_report(out, &out == &std::cout && isatty(STDOUT_FILENO), report, rules, a,
                 [&](const std::string&) { return settings; });
    return exit_code(a, report, 0);
  }
  auto reanalyze = [&](const std::string& t) { return analyze(*make_source(t), settings); };
  fix::FixLoopResult loop = fix::fix_until_stable(source->text, initial, reanalyze,
                                                  fix::parse_error_counter(source->language),
                                                  fix::FixLoopOptions{a.unsafe_fixes, 16});
  const std::string bom = source->has_bom ? "\xEF\xBB\xBF" : "";
  std::string fixed = loop.error.empty() ? bom + loop.text : text;
  size_t applied = loop.error.empty() ? loop.applied.size() : 0;
  AnalysisResult remaining_result = loop.error.empty() ? std::move(loop.analysis) : std::move(initial);
  if (!loop.error.empty()) remaining_result.notices.push_back({name, "fix not applied: " + loop.error, std::nullopt});
  Report remaining = make_report(make_source(fixed), std::move(remaining_result));
  remaining.fixed = applied;
  if (a.do_diff) {
    out << fix::unified_diff(text, fixed, name == "-" ? "stdin" : output::relative_path(name));
    if (!a.quiet && !a.silent && applied) write_fixed_line(std::cerr, applied, 0, true);
    return remaining.errors.empty() ? (fixed != text ? 1 : 0) : 2;
  }
  std::cout << fixed;
  std::cout.flush();
  if (!a.fix_only && !a.silent) {
    CheckArgs to_stderr = a;
    to_stderr.no_color = true;
    write_report(std::cerr, false, remaining, rules, to_stderr, [&](const std::string&) { return settings; });
  }
  if (!a.quiet && !a.silent && a.fix_only)
    write_fixed_line(std::cerr, applied, a.unsafe_fixes ? 0 : hidden_unsafe_fixes(remaining), false);
  return exit_code(a, remaining, applied);
}

struct RunState {
  std::set<std::string> config_files;  // configuration files the run read (--watch watches them)
  std::mutex mutex;
};

// One `stoker check` over files and directories.
int check_paths(const CheckArgs& a, const RuleRegistry& rules, const Prepared& p, std::ostream& out,
                bool out_is_terminal, RunState& state) {
  ConfigResolver resolver(a.config_file.empty() ? std::nullopt : std::optional(a.config_file), p.overrides);
  RunOptions run;
  run.paths = a.paths.empty() ? std::vector<std::string>{"."} : a.paths;
  run.threads = a.threads;
  run.settings_for = [&](const std::string& path) {
    Settings s = resolver.settings_for(path);
    if (!s.config_file.empty()) {
      std::lock_guard lock(state.mutex);
      state.config_files.insert(s.config_file);
    }
    return s;
  };
  run.exclude = [&](const std::string& path) { return resolver.excluded(path); };
  if (a.force_exclude)
    std::erase_if(run.paths, [&](const std::string& path) {
      std::error_code ec;
      return fs::is_regular_file(path, ec) && resolver.excluded(path);
    });

  if (a.show_files || a.show_settings) {
    DiscoveryResult found = discover_files(run.paths, run.exclude);
    for (const auto& e : found.errors) std::cerr << e.file << ": error: " << e.message << "\n";
    if (report_config_errors(resolver)) return 2;
    if (a.show_files) {
      for (const auto& f : found.files) out << f << "\n";
    } else if (found.files.empty()) {
      std::cerr << "stoker: no files to show the settings of\n";
      return 2;
    } else {
      Settings s = resolver.settings_for(found.files.front());
      if (report_config_errors(resolver)) return 2;
      out << "Resolved settings for: " << found.files.front() << "\n";
      write_effective_config(out, s, found.files.front());
    }
    return found.errors.empty() ? 0 : 2;
  }

  std::optional<cli::ResultCache> cache;
  if (!a.no_cache && !a.add_ignore) {
    cache.emplace(a.cache_dir);
    run.analyze_file = [&](const SourceFile& f, const Settings& s) { return cache->analyze(f, s); };
    run.load_module = [&](const SourceFile& f, const Settings& s, std::string& state) {
      return cache->load_module(f, s, state);
    };
    run.store_module = [&](const SourceFile& f, const Settings& s, const AnalysisResult& r, const std::string& state) {
      cache->store_module(f, s, r, state);
    };
  }
  run.project = !a.no_project;
  std::optional<cli::Progress> progress;
  if (human_format(a.format) && !a.quiet && !a.silent && isatty(STDERR_FILENO)) {
    progress.emplace(stderr);
    run.on_file_done = [&](size_t done, size_t total, const std::string& path) {
      progress->file_done(done, total, path);
    };
  }
  Report report = run.paths.empty() ? Report{} : run_analysis(run, p.settings);
  if (progress) progress->finish();
  if (a.verbose && cache)
    std::cerr << "stoker: cache " << a.cache_dir << ": " << cache->hits() << " hit" << (cache->hits() == 1 ? "" : "s")
              << ", " << cache->misses() << " analyzed" << (cache->write_failures() ? " (some entries not written)" : "")
              << "\n";
  if (report_config_errors(resolver)) return 2;

  if (a.add_ignore) {
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
    if (!a.silent) {
      out << "Added " << added << " suppression comment" << (added == 1 ? "" : "s") << " in " << files << " file"
          << (files == 1 ? "" : "s") << ".\n";
      if (skipped) out << skipped << " finding(s) could not take a trailing comment (string or continuation).\n";
    }
    return report.errors.empty() ? 0 : 2;
  }

  const bool fixing = a.do_fix || a.fix_only;
  std::ostream& human = human_format(a.format) ? out : std::cerr;  // never into a machine format
  size_t applied = 0;
  if (a.do_diff || fixing) {
    fix::FixRunOptions fopts;
    fopts.unsafe = a.unsafe_fixes;
    fopts.write = !a.do_diff;
    auto summary = fix::fix_report(report, [&](const std::string& path) { return resolver.settings_for(path); }, fopts);
    if (a.do_diff) {
      fix::write_diffs(out, summary);
      for (const auto& f : summary.files)
        if (!f.error.empty()) std::cerr << f.path << ": fix not applied: " << f.error << "\n";
      if (!a.quiet && !a.silent) {
        if (a.show_fixes) fix::write_applied_fixes(std::cerr, summary, true);
        else if (summary.applied()) write_fixed_line(std::cerr, summary.applied(), 0, true);
      }
      if (!report.errors.empty()) return 2;
      return summary.changed_files() ? 1 : 0;
    }
    applied = report.fixed;
    if (!a.fix_only) write_report(out, out_is_terminal, report, rules, a, run.settings_for);
    else if (!a.silent)
      for (const auto& e : report.errors) std::cerr << e.file << ": error: " << e.message << "\n";
    if (!a.quiet && !a.silent) {
      // Text output already says "(N fixed, M remaining)"; otherwise say what was fixed.
      if (a.show_fixes) fix::write_applied_fixes(human, summary, false);
      else if ((report.fixed && !human_format(a.format)) || a.fix_only)
        write_fixed_line(human, report.fixed, a.unsafe_fixes ? 0 : hidden_unsafe_fixes(report), false);
    }
    return exit_code(a, report, applied);
  }
  write_report(out, out_is_terminal, report, rules, a, run.settings_for);
  return exit_code(a, report, 0);
}

// --watch: what the last run saw, to notice a change (files, their sizes and times, and the
// configuration files).
std::map<std::string, std::pair<uintmax_t, int64_t>> snapshot(const CheckArgs& a, const std::set<std::string>& configs) {
  std::map<std::string, std::pair<uintmax_t, int64_t>> snap;
  ConfigResolver resolver(a.config_file.empty() ? std::nullopt : std::optional(a.config_file), {});
  DiscoveryResult found = discover_files(a.paths.empty() ? std::vector<std::string>{"."} : a.paths,
                                         [&](const std::string& p) { return resolver.excluded(p); });
  std::vector<std::string> all = found.files;
  all.insert(all.end(), configs.begin(), configs.end());
  if (!a.config_file.empty()) all.push_back(a.config_file);
  for (const auto& f : all) {
    std::error_code ec;
    auto size = fs::file_size(f, ec);
    auto time = fs::last_write_time(f, ec);
    snap[f] = {ec ? 0 : size, ec ? 0 : static_cast<int64_t>(time.time_since_epoch().count())};
  }
  return snap;
}

int check_watch(const CheckArgs& a, const RuleRegistry& rules, const Prepared& p, std::ostream& out,
                bool out_is_terminal) {
  long max_runs = 0;  // STOKER_WATCH_MAX_RUNS: stop after that many runs (tests); default: until interrupted
  if (const char* m = std::getenv("STOKER_WATCH_MAX_RUNS")) max_runs = std::strtol(m, nullptr, 10);
  int rc = 0;
  for (long runs = 1;; ++runs) {
    RunState state;
    rc = check_paths(a, rules, p, out, out_is_terminal, state);
    auto before = snapshot(a, state.config_files);
    std::time_t now = std::time(nullptr);
    char stamp[16];
    std::strftime(stamp, sizeof stamp, "%H:%M:%S", std::localtime(&now));
    out << "[" << stamp << "] Watching for file changes.\n";
    out.flush();
    if (max_runs > 0 && runs >= max_runs) return rc;
    while (snapshot(a, state.config_files) == before) std::this_thread::sleep_for(std::chrono::milliseconds(250));
    // Let a burst of writes (an editor saving several files) settle before checking again.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    out << "\nFile change detected...\n";
  }
}

int run_check(CheckArgs& a, const RuleRegistry& rules) {
  Prepared p;
  if (!prepare(a, rules, p)) return 2;
  if (!a.profile_path.empty()) {
    try {
      a.profile = std::make_shared<trace::Profile>(trace::measure(trace::read_trace(a.profile_path)));
    } catch (const trace::TraceError& e) {
      std::cerr << "stoker: " << e.what() << "\n";
      return 2;
    }
  }
  bool from_stdin = !a.stdin_filename.empty() || (a.paths.size() == 1 && a.paths[0] == "-");
  if (from_stdin) {
    for (const auto& path : a.paths)
      if (path != "-") std::cerr << "stoker: warning: ignoring `" << path << "` in favour of standard input\n";
    if (a.watch || a.show_files || a.show_settings || a.add_ignore) {
      std::cerr << "stoker: --watch, --show-files, --show-settings and --add-ignore need files, not standard input\n";
      return 2;
    }
  } else if (std::find(a.paths.begin(), a.paths.end(), "-") != a.paths.end()) {
    std::cerr << "stoker: `-` (standard input) cannot be mixed with other paths\n";
    return 2;
  }
  if (a.watch && (a.do_diff || a.add_ignore)) {
    std::cerr << "stoker: --watch cannot be combined with --diff or --add-ignore\n";
    return 2;
  }

  NullBuffer null_buffer;
  std::ostream null_stream(&null_buffer);
  std::ofstream file_stream;
  std::ostream* out = &std::cout;
  bool out_is_terminal = isatty(STDOUT_FILENO);
  if (a.silent) {
    out = &null_stream;
    out_is_terminal = false;
  } else if (!a.output_file.empty()) {
    std::error_code ec;
    fs::path parent = fs::path(a.output_file).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    file_stream.open(a.output_file, std::ios::binary | std::ios::trunc);
    if (!file_stream) {
      std::cerr << "stoker: cannot write `" << a.output_file << "`: " << std::strerror(errno) << "\n";
      return 2;
    }
    out = &file_stream;
    out_is_terminal = false;
  }
  int rc;
  if (from_stdin) rc = check_stdin(a, rules, p, *out);
  else if (a.watch) rc = check_watch(a, rules, p, *out, out_is_terminal);
  else {
    RunState state;
    rc = check_paths(a, rules, p, *out, out_is_terminal, state);
  }
  out->flush();
  if (file_stream.is_open() && !file_stream) {
    std::cerr << "stoker: writing `" << a.output_file << "` failed\n";
    return 2;
  }
  return rc;
}

}  // namespace

// jemalloc's options, read when it starts (the process's first allocation; ignored under glibc's
// malloc): transparent huge pages for the heap and jemalloc's own metadata, and freed pages kept
// rather than handed back to the system after 10 s (a one-shot run: the peak stays the peak).
// Project mode keeps trees, summaries and tables across analyses, so each parse and model writes
// fresh memory: ~96,000 page faults on pytorch-image-models, 4,800 with these (speed31;
// bench/project/README.md, session 28). MALLOC_CONF in the environment still overrides them.
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "thp:always,metadata_thp:always,dirty_decay_ms:-1,muzzy_decay_ms:-1";
}

int main(int argc, char** argv) {
  CLI::App app{"stoker: finds the code that leaves your GPU waiting, and fixes it"};
  app.require_subcommand(1);
  app.set_version_flag("-V,--version", std::string("stoker ") + STOKER_VERSION);
  const RuleRegistry& rules = RuleRegistry::builtin();

  auto* check = app.add_subcommand("check", "Analyze Python and C++/CUDA files for GPU starvation patterns");
  CheckArgs a;
  check->add_option("paths", a.paths, "Files or directories to analyze (default: .); `-` reads standard input");
  // One value per option (a comma-separated list): the words after it are paths, as in ruff.
  check->add_option("--select", a.select, "Rule codes or prefixes to enable (comma-separated)")->allow_extra_args(false);
  check->add_option("--extend-select", a.extend_select, "Rule codes or prefixes to enable in addition")
      ->allow_extra_args(false);
  check->add_option("--ignore", a.ignore, "Rule codes or prefixes to disable (comma-separated)")->allow_extra_args(false);
  check->add_option("--output-format", a.format, "Output format (default: $STOKER_OUTPUT_FORMAT or text)")
      ->envname("STOKER_OUTPUT_FORMAT")
      ->check(CLI::IsMember({"text", "concise", "json", "sarif", "github", "gitlab", "junit", "html"}));
  check->add_option("-o,--output-file", a.output_file, "Write the output to this file instead of stdout");
  check->add_option("--config", a.config_file, "Use this configuration file for every file (no discovery)")
      ->check(CLI::ExistingFile);
  check->add_option("--stdin-filename", a.stdin_filename,
                    "Read the source from standard input; this name decides language and configuration");
  check->add_flag("--report-unused-ignores", a.report_unused_ignores,
                  "Report suppression comments that suppress nothing (ST001)");
  check->add_flag("--add-ignore", a.add_ignore,
                  "Add a `stoker: ignore[...]` comment for every current finding (to adopt stoker)");
  check->add_flag("--force-exclude", a.force_exclude,
                  "Apply the configuration's exclude globs to files named on the command line too");
  check->add_flag("--statistics", a.statistics, "Show counts for every rule with findings");
  check->add_flag("-e,--exit-zero", a.exit_zero, "Exit with 0 even when findings are reported");
  check->add_flag("--exit-non-zero-on-fix", a.exit_non_zero_on_fix,
                  "Exit with 1 when fixes were applied, even if no findings remain");
  check->add_flag("--no-color", a.no_color, "Never color the output");
  check->add_flag("-q,--quiet", a.quiet, "Print findings, but no summary lines");
  check->add_flag("-s,--silent", a.silent, "Print nothing; the exit code says what was found");
  check->add_flag("-v,--verbose", a.verbose, "Say what the cache did (on stderr)");
  check->add_option("--threads", a.threads, "Worker threads (default: all cores)");
  check->add_flag("--fix", a.do_fix, "Apply safe fixes");
  check->add_flag("--fix-only", a.fix_only, "Apply safe fixes and report nothing else (implies --fix)");
  check->add_flag("--unsafe-fixes", a.unsafe_fixes, "Also apply unsafe fixes (with --fix or --diff)");
  check->add_flag("--diff", a.do_diff, "Print the fixes as a unified diff and write nothing (exit 1 if there are any)");
  check->add_flag("--show-fixes", a.show_fixes, "List the fixes applied");
  check->add_flag("--show-files", a.show_files, "List the files that would be analyzed, and exit");
  check->add_flag("--show-settings", a.show_settings, "Show the settings of the first file that would be analyzed");
  check->add_flag("-w,--watch", a.watch, "Check again whenever a file changes");
  check->add_flag("-n,--no-cache", a.no_cache, "Neither read nor write the result cache");
  check->add_flag("--no-project", a.no_project,
                  "Analyze each file alone (default: Python files with the modules they import and that import them)");
  check->add_option("--cache-dir", a.cache_dir, "Cache directory (default: .stoker_cache)")->envname("STOKER_CACHE_DIR");
  check->add_option("--gpu", a.gpu, "Hardware profile for impact estimates (h100-sxm, a100-pcie, ..., generic)");
  check->add_option("--workload", a.workload_kv,
                    "Override an impact-model assumption: step-time-ms=, load-time-ms=, batch-bytes=, workers=")
      ->allow_extra_args(false);
  check->add_option("-p,--build-path", a.compile_commands_dir,
                    "C++: directory with compile_commands.json (default: found upwards from each file)");
  check->add_option("--cuda-path", a.cuda_path, "C++: parse CUDA files against this toolkit's headers (toolkit mode)");
  check->add_flag("--show-parse-errors", a.show_parse_errors, "C++: list every error clang reports");
  check->add_option("--target-torch-version", a.target_torch_version,
                    "PyTorch version the code targets, MAJOR.MINOR (default: the project's torch requirement, "
                    "else the newest)");
  check->add_option("--profile", a.profile_path,
                    "A PyTorch profiler trace (.json or .json.gz) of this code's run: join measured costs to the findings");

  auto* profile_cmd = app.add_subcommand("profile", "Measure GPU busy and idle per step in a PyTorch profiler trace");
  std::string profile_trace, profile_format = "text";
  profile_cmd->add_option("trace", profile_trace, "Chrome trace from torch.profiler (.json or .json.gz)")->required();
  profile_cmd->add_option("--output-format", profile_format, "text or json")->check(CLI::IsMember({"text", "json"}));

  auto* impact_cmd = app.add_subcommand("impact", "Evaluate one impact model for given numbers (JSON)");
  std::string impact_model, impact_gpu = "generic";
  std::vector<std::string> impact_workload, impact_facts;
  impact_cmd->add_option("model", impact_model, "Model name, e.g. serial-loader")->required();
  impact_cmd->add_option("--gpu", impact_gpu, "Hardware profile");
  impact_cmd->add_option("--workload", impact_workload, "step-time-ms=, load-time-ms=, batch-bytes=, workers=")
      ->allow_extra_args(false);
  impact_cmd->add_option("--fact", impact_facts, "A resolved fact, e.g. batch_size=64, num_workers=0")
      ->allow_extra_args(false);

  auto* rule = app.add_subcommand("rule", "Explain a rule");
  std::string rule_code;
  bool rule_all = false;
  rule->add_option("code", rule_code, "Rule code, e.g. DL001");
  rule->add_flag("--all", rule_all, "List every rule");

  auto* linter = app.add_subcommand("linter", "List the rule families (prefixes for --select and --ignore)");
  std::string linter_format = "text";
  linter->add_option("--output-format", linter_format, "text or json")->check(CLI::IsMember({"text", "json"}));

  auto* clean = app.add_subcommand("clean", "Remove the result caches (.stoker_cache) here and below");

  app.add_subcommand("version", "Print the version");

  auto* server = app.add_subcommand("server", "Run the language server (LSP over stdin/stdout)");
  bool stdio = true;
  server->add_flag("--stdio", stdio, "Use stdin/stdout (the default and only transport)");

  auto* config_cmd = app.add_subcommand("config", "Show the effective configuration");
  std::string config_for = ".", config_file;
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
  if (app.got_subcommand(linter)) return print_linters(rules, linter_format);
  if (app.got_subcommand(clean)) {
    std::error_code ec;
    for (const auto& dir : cli::clean_caches(fs::current_path(ec))) std::cout << "Removed " << dir << "\n";
    return 0;
  }

  if (app.got_subcommand(config_cmd)) {
    ConfigResolver resolver(config_file.empty() ? std::nullopt : std::optional(config_file), {});
    // For a directory, the configuration of a file inside it.
    std::string probe = fs::is_directory(config_for) ? config_for + "/__stoker__.py" : config_for;
    Settings s = resolver.settings_for(probe);
    if (report_config_errors(resolver)) return 2;
    write_effective_config(std::cout, s, config_for);
    return 0;
  }

  if (app.got_subcommand(profile_cmd)) {
    try {
      trace::Profile prof = trace::measure(trace::read_trace(profile_trace));
      std::cout << (profile_format == "json" ? trace::profile_json(prof) + "\n" : trace::profile_text(prof));
      return 0;
    } catch (const trace::TraceError& e) {
      std::cerr << "stoker: " << e.what() << "\n";
      return 2;
    }
  }

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

  if (a.fix_only) a.do_fix = true;
  return run_check(a, rules);
}
