// The real binary: ruff-like options (selectors that never swallow paths, --version, summary
// lines and exit codes, --diff for git apply, stdin, --output-file, --quiet, --silent,
// --fix-only, --exit-non-zero-on-fix, --show-files, --show-settings, --watch), `stoker linter`,
// `extend` in configuration, the result cache and `stoker clean`, the progress line.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "cli_support.h"

namespace fs = std::filesystem;
using namespace stoker::testing;

namespace {

const char* kStarved = R"(import torch
from torch.utils.data import DataLoader
loader = DataLoader(ds, batch_size=64)
model = Net().cuda()
for x in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
)";

// Findings with safe, unsafe and no fixes, from the rule fixtures (DL001/DL002 carry unsafe
// fixes, TX001 safe ones, SY002 none).
std::string fixture(const std::string& name) { return read_text(fs::path(STOKER_SOURCE_DIR) / "tests/fixtures/python" / name); }

std::string nc(const std::string& args) { return stoker_command(args + " --no-cache"); }

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

std::set<std::string> codes_in_json(const std::string& out) {
  std::set<std::string> codes;
  for (const auto& d : nlohmann::json::parse(out)) codes.insert(d["code"].get<std::string>());
  return codes;
}

}  // namespace

TEST_CASE("selector options take one comma-separated value and leave the paths after it alone") {
  TempDir d;
  write_text(d / "train.py", kStarved);
  write_text(d / "other.py", kStarved);
  auto all = run_in(d.path, nc("check --output-format json train.py"));
  REQUIRE(all.rc == 1);
  auto every = codes_in_json(all.out);
  REQUIRE(every.count("DL001"));
  REQUIRE(every.size() >= 2);

  SECTION("--select SY train.py: SY selected, train.py analyzed") {
    auto r = run_in(d.path, nc("check --select DL train.py --output-format json"));
    INFO(r.err);
    CHECK(r.rc == 1);
    for (const auto& c : codes_in_json(r.out)) CHECK(c.rfind("DL", 0) == 0);
    CHECK(codes_in_json(r.out).count("DL001"));
  }
  SECTION("a comma-separated list, then two paths") {
    auto r = run_in(d.path, nc("check --output-format json --select DL001,TX train.py other.py"));
    INFO(r.err);
    CHECK(r.rc == 1);
    auto j = nlohmann::json::parse(r.out);
    std::set<std::string> files;
    for (const auto& item : j) {
      files.insert(fs::path(item["filename"].get<std::string>()).filename().string());
      std::string code = item["code"];
      CHECK((code == "DL001" || code.rfind("TX", 0) == 0));
    }
    CHECK(files == std::set<std::string>{"train.py", "other.py"});
  }
  SECTION("--select=LIST and a quoted list with spaces") {
    auto a = run_in(d.path, nc("check --output-format json --select=DL001 train.py"));
    auto b = run_in(d.path, nc("check --output-format json --select 'DL001, TX' train.py"));
    CHECK(codes_in_json(a.out) == std::set<std::string>{"DL001"});
    CHECK(codes_in_json(b.out).count("DL001"));
  }
  SECTION("--ignore and --extend-select, each followed by the path") {
    auto r = run_in(d.path, nc("check --output-format json --ignore DL001 train.py"));
    CHECK(r.rc == 1);
    auto codes = codes_in_json(r.out);
    CHECK_FALSE(codes.count("DL001"));
    CHECK(codes.size() == every.size() - 1);
    auto e = run_in(d.path, nc("check --output-format json --select TX --extend-select DL001 train.py"));
    CHECK(codes_in_json(e.out).count("DL001"));
    auto both = run_in(d.path, nc("check --select DL --ignore DL train.py"));
    CHECK(both.rc == 0);
    CHECK_THAT(both.out, Catch::Contains("All checks passed! (1 file analyzed)"));
  }
  SECTION("repeated options add up") {
    auto r = run_in(d.path, nc("check --output-format json --select DL001 --select TX train.py"));
    auto codes = codes_in_json(r.out);
    CHECK(codes.count("DL001"));
    for (const auto& c : codes) CHECK((c == "DL001" || c.rfind("TX", 0) == 0));
  }
  SECTION("a path where a selector belongs is a clear usage error") {
    auto r = run_in(d.path, nc("check --select train.py"));
    CHECK(r.rc == 2);
    CHECK_THAT(r.err, Catch::Contains("unknown rule selector `train.py`") && Catch::Contains("a path?"));
  }
  SECTION("every other option with a value leaves the path after it alone") {
    write_text(d / "stoker.toml", "gpu = \"a100-sxm\"\n");
    for (std::string opt : {"--output-format concise", "--config stoker.toml", "-o report.txt", "--gpu h100-sxm",
                            "--workload step-time-ms=50", "--threads 1", "--cache-dir cache", "--output-file r.txt"}) {
      auto r = run_in(d.path, nc("check " + opt + " train.py"));
      INFO(opt << "\n" << r.out << r.err);
      CHECK(r.rc == 1);
    }
    CHECK_THAT(read_text(d / "report.txt"), Catch::Contains("train.py:3:10: DL001"));
  }
}

TEST_CASE("the version: --version and -V and `stoker version`") {
  for (std::string arg : {"--version", "-V", "version"}) {
    auto r = run_stoker(arg);
    INFO(arg);
    CHECK(r.rc == 0);
    CHECK(r.out == std::string("stoker ") + STOKER_VERSION + "\n");
  }
}

TEST_CASE("summary lines and exit codes follow ruff's") {
  TempDir d;
  // One file with safe (TX001) and unsafe (DL001) fixes.
  write_text(d / "train.py", fixture("TX001.py") + "\n" + fixture("DL001.py"));
  auto json = run_in(d.path, nc("check --output-format json train.py"));
  size_t safe = 0, unsafe = 0;
  for (const auto& item : nlohmann::json::parse(json.out)) {
    if (item["fix"].is_null() || item["fix"]["edits"].empty()) continue;
    std::string a = item["fix"]["applicability"];
    safe += a == "safe";
    unsafe += a == "unsafe";
  }
  REQUIRE(safe > 0);
  REQUIRE(unsafe > 0);

  SECTION("the fixable count is what --fix applies; the unsafe ones are said separately") {
    auto r = run_in(d.path, nc("check --no-color train.py"));
    CHECK(r.rc == 1);
    CHECK_THAT(r.out, Catch::Contains("[*] " + std::to_string(safe) + " fixable with the `--fix` option (" +
                                      std::to_string(unsafe) + " hidden fix" + (unsafe == 1 ? "" : "es") +
                                      " can be enabled with the `--unsafe-fixes` option)."));
    auto u = run_in(d.path, nc("check --no-color --unsafe-fixes train.py"));
    CHECK_THAT(u.out, Catch::Contains("[*] " + std::to_string(safe + unsafe) + " fixable with the `--fix` option.\n"));
    // Concise: [*] marks exactly the findings --fix would fix.
    auto c = run_in(d.path, nc("check --output-format concise train.py"));
    CHECK(count(c.out, " [*]\n") == safe);
  }
  SECTION("after --fix, the unsafe fixes left are counted as ruff does") {
    auto r = run_in(d.path, nc("check --fix --no-color train.py"));
    CHECK(r.rc == 1);
    CHECK_THAT(r.out, Catch::Contains("No fixes available (" + std::to_string(unsafe) + " hidden fix"));
    CHECK_THAT(r.out, Catch::Contains("(" + std::to_string(safe) + " fixed, "));
    auto left = run_in(d.path, nc("check --output-format json train.py"));
    size_t remaining = nlohmann::json::parse(left.out).size();
    CHECK_THAT(r.out, Catch::Contains("Found " + std::to_string(safe + remaining) + " findings (" +
                                      std::to_string(safe) + " fixed, " + std::to_string(remaining) +
                                      " remaining) in 1 file."));
  }
  SECTION("no \"All checks passed!\" after a read error, and exit 2") {
    write_text(d / "clean.py", "import torch\nx = torch.zeros(3)\n");
    auto r = run_in(d.path, nc("check --no-color clean.py missing.py"));
    CHECK(r.rc == 2);
    CHECK_THAT(r.out, !Catch::Contains("All checks passed"));
    CHECK_THAT(r.out, Catch::Contains("No findings in 1 file analyzed, but 1 input could not be analyzed"));
    auto f = run_in(d.path, nc("check --no-color train.py missing.py"));
    CHECK(f.rc == 2);
    CHECK_THAT(f.out, Catch::Contains("1 input could not be analyzed"));
  }
}

TEST_CASE("diff: --diff . writes paths that git apply accepts") {
  TempDir d;
  write_text(d / "train.py", fixture("TX001.py"));
  write_text(d / "pkg/model.py", fixture("TX001.py"));
  REQUIRE(run_in(d.path, "git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm init").rc == 0);
  for (std::string target : {".", "./", "./pkg/../train.py ./pkg/model.py"}) {
    INFO(target);
    auto diff = run_in(d.path, nc("check --diff " + target));
    CHECK(diff.rc == 1);
    CHECK_THAT(diff.out, Catch::Contains("--- a/train.py\n+++ b/train.py\n"));
    CHECK_THAT(diff.out, !Catch::Contains("a/./"));
    write_text(d / "out.patch", diff.out);
    auto check = run_in(d.path, "git apply --check out.patch");
    INFO(check.err);
    CHECK(check.rc == 0);
  }
  auto diff = run_in(d.path, nc("check --diff ."));
  write_text(d / "out.patch", diff.out);
  REQUIRE(run_in(d.path, "git apply out.patch").rc == 0);
  fs::remove(d / "out.patch");
  // Applying the diff is what --fix does: nothing safe is left.
  CHECK(run_in(d.path, nc("check --diff .")).out.empty());
}

TEST_CASE("standard input: --stdin-filename NAME - reads the source - with --fix the fixed source is printed") {
  TempDir d;
  const std::string src = fixture("TX001.py");
  write_text(d / "input.py", src);
  write_text(d / "train.py", src);

  auto r = run_in(d.path, nc("check --no-color --stdin-filename train.py - < input.py"));
  CHECK(r.rc == 1);
  CHECK_THAT(r.out, Catch::Contains("train.py:") && Catch::Contains("TX001"));
  CHECK_THAT(r.out, !Catch::Contains("input.py"));
  // The same findings as for the file itself.
  auto from_file = run_in(d.path, nc("check --output-format json train.py"));
  auto from_stdin = run_in(d.path, nc("check --output-format json --stdin-filename train.py < input.py"));
  CHECK(from_file.out == from_stdin.out);
  // C++/CUDA too: the name's extension decides.
  const fs::path cu = fs::path(STOKER_SOURCE_DIR) / "tests/fixtures/cxx/cu_small_copies.cu";
  write_text(d / "k.cu", read_text(cu));
  auto cu_file = run_in(d.path, nc("check --output-format json k.cu"));
  auto cu_stdin = run_in(d.path, nc("check --output-format json --stdin-filename k.cu - < " + shell_quote(cu.string())));
  CHECK(cu_stdin.rc == 1);
  CHECK(cu_stdin.out == cu_file.out);
  // `-` alone is Python.
  auto dash = run_in(d.path, nc("check --output-format concise - < input.py"));
  CHECK_THAT(dash.out, Catch::Contains("-:") && Catch::Contains("TX001"));

  // --fix: stdout is exactly what --fix writes into the file; the findings left go to stderr.
  auto fixed = run_in(d.path, nc("check --fix --stdin-filename train.py - < input.py"));
  REQUIRE(run_in(d.path, nc("check --fix train.py")).rc <= 1);
  CHECK(fixed.out == read_text(d / "train.py"));
  CHECK(fixed.out != src);
  CHECK(read_text(d / "input.py") == src);
  // Configuration is found from the name: a stoker.toml that ignores TX applies.
  write_text(d / "sub/stoker.toml", "ignore = [\"TX\"]\n");
  auto ignored = run_in(d.path, nc("check --output-format json --stdin-filename sub/train.py - < input.py"));
  for (const auto& c : codes_in_json(ignored.out)) CHECK(c.rfind("TX", 0) != 0);
  // --fix-only prints the fixed source and nothing else on stdout, and exits 0.
  auto only = run_in(d.path, nc("check --fix-only --stdin-filename x.py < input.py"));
  CHECK(only.rc == 0);
  CHECK(only.out == fixed.out);
  // Binary input is refused and passed through unchanged.
  write_text(d / "blob.bin", std::string("import torch\0\x01", 14));
  auto bad = run_in(d.path, nc("check --fix --stdin-filename t.py - < blob.bin"));
  CHECK(bad.rc == 2);
  CHECK(bad.out == std::string("import torch\0\x01", 14));
}

TEST_CASE("output: --output-file and --quiet and --silent") {
  TempDir d;
  write_text(d / "train.py", kStarved);
  auto plain = run_in(d.path, nc("check --no-color train.py"));
  auto to_file = run_in(d.path, nc("check -o out/report.txt train.py"));
  CHECK(to_file.rc == plain.rc);
  CHECK(to_file.out.empty());
  CHECK(read_text(d / "out/report.txt") == plain.out);
  auto sarif = run_in(d.path, nc("check --output-format sarif --output-file r.sarif train.py"));
  CHECK(nlohmann::json::parse(read_text(d / "r.sarif"))["version"] == "2.1.0");
  CHECK(run_in(d.path, nc("check -o /proc/nope/x train.py")).rc == 2);

  auto quiet = run_in(d.path, nc("check -q --no-color train.py"));
  CHECK(quiet.rc == 1);
  CHECK_THAT(quiet.out, Catch::Contains("DL001") && !Catch::Contains("Found ") && !Catch::Contains("fixable"));
  auto silent = run_in(d.path, nc("check --silent train.py"));
  CHECK(silent.rc == 1);
  CHECK(silent.out.empty());
  CHECK(silent.err.empty());
  write_text(d / "clean.py", "x = 1\n");
  CHECK(run_in(d.path, nc("check -s clean.py")).rc == 0);
}

TEST_CASE("fixing: --fix-only and --exit-non-zero-on-fix") {
  TempDir d;
  const std::string src = fixture("TX001.py") + "\n" + fixture("SY002.py");  // safe fixes and findings without
  write_text(d / "train.py", src);
  auto only = run_in(d.path, nc("check --fix-only --no-color train.py"));
  CHECK(only.rc == 0);  // leftovers do not fail
  CHECK_THAT(only.out, Catch::Contains("Fixed ") && !Catch::Contains("SY002"));
  CHECK(read_text(d / "train.py") != src);
  auto left = run_in(d.path, nc("check --output-format json train.py"));
  CHECK_FALSE(nlohmann::json::parse(left.out).empty());

  write_text(d / "train.py", src);
  CHECK(run_in(d.path, nc("check --fix-only --exit-non-zero-on-fix train.py")).rc == 1);
  // Nothing left to fix: 0 again.
  CHECK(run_in(d.path, nc("check --fix-only --exit-non-zero-on-fix train.py")).rc == 0);
  // Only safely fixable findings: --fix exits 0, unless --exit-non-zero-on-fix.
  write_text(d / "t2.py", fixture("TX001.py"));
  auto fixable_only = run_in(d.path, nc("check --output-format json --select TX001 t2.py"));
  REQUIRE_FALSE(nlohmann::json::parse(fixable_only.out).empty());
  CHECK(run_in(d.path, nc("check --fix --select TX001 --exit-non-zero-on-fix t2.py")).rc == 1);
  write_text(d / "t2.py", fixture("TX001.py"));
  CHECK(run_in(d.path, nc("check --fix --select TX001 t2.py")).rc == 0);
}

TEST_CASE("listing: --show-files and --show-settings") {
  TempDir d;
  write_text(d / "proj/a.py", kStarved);
  write_text(d / "proj/k.cu", "void f() {}\n");
  write_text(d / "proj/gen/skip.py", kStarved);
  write_text(d / "proj/notes.txt", "x");
  write_text(d / "proj/stoker.toml", "extend-exclude = [\"gen\"]\nselect = [\"DL\", \"TX\"]\n");
  auto files = run_in(d.path, nc("check --show-files proj"));
  CHECK(files.rc == 0);
  CHECK(files.out == "proj/a.py\nproj/k.cu\n");
  auto settings = run_in(d.path, nc("check --show-settings proj"));
  CHECK(settings.rc == 0);
  CHECK_THAT(settings.out, Catch::Contains("Resolved settings for: proj/a.py") &&
                               Catch::Contains("stoker.toml") && Catch::Contains("select = [ 'DL', 'TX' ]"));
  auto with_cli = run_in(d.path, nc("check --show-settings --ignore TX proj"));
  CHECK_THAT(with_cli.out, Catch::Contains("ignore = [ 'TX' ]"));
}

TEST_CASE("stoker linter lists the rule families of the rule catalog") {
  auto rules = run_stoker("rule --all");
  std::set<std::string> families;
  std::istringstream lines(rules.out);
  for (std::string line; std::getline(lines, line);) families.insert(line.substr(0, 2));
  auto text = run_stoker("linter");
  CHECK(text.rc == 0);
  for (const auto& f : families) CHECK_THAT(text.out, Catch::Contains(" " + f + " "));
  CHECK_THAT(text.out, Catch::Contains("DL data loading"));
  auto json = nlohmann::json::parse(run_stoker("linter --output-format json").out);
  std::set<std::string> listed;
  size_t rule_count = 0;
  for (const auto& l : json) listed.insert(l["prefix"].get<std::string>()), rule_count += l["rules"].size();
  CHECK(listed == families);
  CHECK(rule_count == static_cast<size_t>(std::count(rules.out.begin(), rules.out.end(), '\n')));
}

TEST_CASE("extend = \"../base.toml\" merges the base configuration as ruff does") {
  TempDir d;
  write_text(d / "train.py", kStarved);
  write_text(d / "base.toml", "ignore = [\"SY\", \"TX001\"]\ngpu = \"a100-sxm\"\nextend-exclude = [\"gen\"]\n");
  write_text(d / "proj/pyproject.toml",
             "[tool.stoker]\nextend = \"../base.toml\"\nextend-select = [\"TX\"]\nextend-exclude = [\"build2\"]\n");
  auto show = run_in(d.path, stoker_command("config --show proj/train.py"));
  INFO(show.out << show.err);
  REQUIRE(show.rc == 0);
  CHECK_THAT(show.out, Catch::Contains("gpu = 'a100-sxm'"));           // from the base
  CHECK_THAT(show.out, Catch::Contains("ignore = [ 'SY' ]"));          // TX001 re-enabled by the later TX
  CHECK_THAT(show.out, Catch::Contains("extend-exclude = [ 'gen', 'build2' ]"));  // added up
  CHECK_THAT(show.out, Catch::Contains("proj/pyproject.toml"));

  // Analysis follows: SY ignored through the base, TX001 back through the child.
  write_text(d / "proj/train.py", fixture("TX001.py") + "\n" + fixture("SY002.py"));
  auto r = run_in(d.path, nc("check --output-format json proj/train.py"));
  auto codes = codes_in_json(r.out);
  CHECK(codes.count("TX001"));
  for (const auto& c : codes) CHECK(c.rfind("SY", 0) != 0);

  // A `select` in the extending file starts afresh: the base's ignore no longer applies.
  write_text(d / "proj/pyproject.toml", "[tool.stoker]\nextend = \"../base.toml\"\nselect = [\"SY\"]\n");
  auto fresh = run_in(d.path, nc("check --output-format json proj/train.py"));
  CHECK(codes_in_json(fresh.out).count("SY002"));

  // A missing base and a cycle are configuration errors naming the file and the key.
  write_text(d / "proj/pyproject.toml", "[tool.stoker]\nextend = \"../nope.toml\"\n");
  auto missing = run_in(d.path, nc("check proj/train.py"));
  CHECK(missing.rc == 2);
  CHECK_THAT(missing.err, Catch::Contains("pyproject.toml:2:") && Catch::Contains("tool.stoker.extend") &&
                              Catch::Contains("nope.toml"));
  write_text(d / "a.toml", "extend = \"b.toml\"\n");
  write_text(d / "b.toml", "extend = \"a.toml\"\n");
  auto cycle = run_in(d.path, nc("check --config a.toml train.py"));
  CHECK(cycle.rc == 2);
  CHECK_THAT(cycle.err, Catch::Contains("cycle"));
}

TEST_CASE("the result cache: re-analyzes changed files and settings, ignores corrupt entries, stoker clean") {
  TempDir d;
  write_text(d / "src/train.py", kStarved);
  write_text(d / "src/other.py", fixture("TX001.py"));
  auto cold = run_in(d.path, stoker_command("check -v --no-color src"));
  CHECK_THAT(cold.err, Catch::Contains("0 hits, 2 analyzed"));
  CHECK(read_text(d / ".stoker_cache/.gitignore").find("*\n") != std::string::npos);
  auto warm = run_in(d.path, stoker_command("check -v --no-color src"));
  CHECK_THAT(warm.err, Catch::Contains("2 hits, 0 analyzed"));
  CHECK(warm.out == cold.out);
  CHECK(warm.rc == cold.rc);
  // The cached findings carry everything the formats print.
  auto uncached_json = run_in(d.path, nc("check --output-format sarif src"));
  auto cached_json = run_in(d.path, stoker_command("check --output-format sarif src"));
  CHECK(cached_json.out == uncached_json.out);

  SECTION("a changed file is analyzed again") {
    write_text(d / "src/train.py", std::string(kStarved) + "y = torch.zeros(1).cuda()\n");
    auto r = run_in(d.path, stoker_command("check -v --no-color src"));
    CHECK_THAT(r.err, Catch::Contains("1 hit, 1 analyzed"));
    CHECK(r.out == run_in(d.path, nc("check --no-color src")).out);
  }
  SECTION("changed settings are analyzed again: command line and configuration") {
    auto r = run_in(d.path, stoker_command("check -v --ignore DL001 src"));
    CHECK_THAT(r.err, Catch::Contains("0 hits, 2 analyzed"));
    CHECK_THAT(r.out, !Catch::Contains("DL001"));
    write_text(d / "src/stoker.toml", "min-batch-size = 128\n");
    auto c = run_in(d.path, stoker_command("check -v src"));
    CHECK_THAT(c.err, Catch::Contains("0 hits, 2 analyzed"));
  }
  SECTION("a corrupt or truncated entry is ignored and rewritten") {
    size_t damaged = 0;
    for (const auto& e : fs::recursive_directory_iterator(d / ".stoker_cache"))
      if (e.is_regular_file() && e.path().extension() == ".json") {
        std::string text = read_text(e.path());
        write_text(e.path(), damaged++ ? text.substr(0, text.size() / 2) : "{\"schema\":1,\"key\":\"x\"}");
      }
    REQUIRE(damaged == 2);
    auto r = run_in(d.path, stoker_command("check -v --no-color src"));
    CHECK_THAT(r.err, Catch::Contains("0 hits, 2 analyzed"));
    CHECK(r.out == cold.out);
    CHECK_THAT(run_in(d.path, stoker_command("check -v src")).err, Catch::Contains("2 hits"));
  }
  SECTION("--no-cache neither reads nor writes; stoker clean removes the cache") {
    auto r = run_in(d.path, stoker_command("check -v --no-cache --cache-dir other src"));
    CHECK_THAT(r.err, !Catch::Contains("hit"));
    CHECK_FALSE(fs::exists(d / "other"));
    write_text(d / "sub/.stoker_cache/x", "y");
    auto clean = run_in(d.path, stoker_command("clean"));
    CHECK(clean.rc == 0);
    CHECK_FALSE(fs::exists(d / ".stoker_cache"));
    CHECK_FALSE(fs::exists(d / "sub/.stoker_cache"));
    CHECK(fs::exists(d / "src/train.py"));
  }
  SECTION("the cache directory is not analyzed and stays out of git") {
    REQUIRE(run_in(d.path, "git init -q").rc == 0);
    auto status = run_in(d.path, "git status --porcelain --untracked-files=all");
    CHECK_THAT(status.out, !Catch::Contains(".stoker_cache"));
    CHECK_THAT(run_in(d.path, stoker_command("check --show-files .")).out, !Catch::Contains(".stoker_cache"));
  }
}

TEST_CASE("watch: --watch checks again when a file changes") {
  TempDir d;
  write_text(d / "train.py", "import torch\nx = torch.zeros(3)\n");
  // Stops by itself after the second run (STOKER_WATCH_MAX_RUNS); `timeout` bounds a failure.
  std::string cmd = "STOKER_WATCH_MAX_RUNS=2 timeout 60 " + nc("check --watch --no-color train.py") +
                    " > watch.log 2>&1; echo $? > watch.rc";
  std::thread runner([&] { run_in(d.path, cmd); });
  auto wait_for = [&](const std::string& text, int seconds) {
    for (int i = 0; i < seconds * 20; ++i) {
      if (read_text(d / "watch.log").find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  };
  bool first = wait_for("Watching for file changes.", 30);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  write_text(d / "train.py", kStarved);
  bool second = wait_for("DL001", 30);
  runner.join();
  std::string log = read_text(d / "watch.log");
  INFO(log);
  CHECK(first);
  CHECK(second);
  CHECK_THAT(log, Catch::Contains("All checks passed!") && Catch::Contains("File change detected"));
  CHECK(count(log, "Watching for file changes.") == 2);
  CHECK(read_text(d / "watch.rc") == "1\n");  // the last run's findings
}

TEST_CASE("a progress line on a terminal, never without one or in machine formats") {
  TempDir d;
  for (int i = 0; i < 30; ++i) write_text(d / ("pkg" + std::to_string(i % 3) + "/m" + std::to_string(i) + ".py"), kStarved);
  // `script` gives stoker a pseudo-terminal; the delay is lowered so that the test need not
  // wait a second.
  auto on_tty = [&](const std::string& args) {
    return run_in(d.path, "STOKER_PROGRESS_DELAY_MS=0 script -qec " + shell_quote(nc(args) + " >/dev/null") +
                              " /dev/null");
  };
  auto tty = on_tty("check --threads 1 .");
  INFO(tty.out);
  CHECK_THAT(tty.out, Catch::Contains("[30/30] ") && Catch::Contains("\r\x1b[K"));
  CHECK(std::regex_search(tty.out, std::regex(R"(\[\d+/30\] \./pkg\d)")));
  CHECK_THAT(on_tty("check --output-format json .").out, !Catch::Contains("/30]"));
  CHECK_THAT(on_tty("check -q .").out, !Catch::Contains("/30]"));
  // stderr is not a terminal: no progress line.
  auto piped = run_in(d.path, "STOKER_PROGRESS_DELAY_MS=0 " + nc("check --threads 1 ."));
  CHECK_THAT(piped.err, !Catch::Contains("/30]"));
  CHECK_THAT(piped.out, !Catch::Contains("/30]"));
  // The default delay: a short run prints no progress even on a terminal.
  auto quick = run_in(d.path, "script -qec " + shell_quote(nc("check pkg0/m0.py") + " >/dev/null") + " /dev/null");
  CHECK_THAT(quick.out, !Catch::Contains("[1/1]"));
}

TEST_CASE("the Action's and pre-commit's command lines: args before the paths") {
  TempDir d;
  write_text(d / "src/train.py", kStarved);
  write_text(d / "train.py", kStarved);
  write_text(d / "ci/stoker.toml", "gpu = \"h100-sxm\"\n");
  // action.yml: "$STOKER_BIN" check --output-format sarif $STOKER_ARGS $STOKER_PATHS
  std::string cmd = "STOKER_ARGS='--config ci/stoker.toml --select DL,TX,SY'; STOKER_PATHS='src/ train.py'; " +
                    stoker_command("check --output-format sarif") + " $STOKER_ARGS $STOKER_PATHS";
  auto r = run_in(d.path, cmd);
  INFO(r.err);
  CHECK(r.rc == 1);
  auto sarif = nlohmann::json::parse(r.out);
  std::set<std::string> uris;
  for (const auto& res : sarif["runs"][0]["results"])
    uris.insert(res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].get<std::string>());
  CHECK(uris == std::set<std::string>{"src/train.py", "train.py"});
  // pre-commit: entry, then args, then the staged files.
  auto hook = run_in(d.path, stoker_command("check --force-exclude --no-color --select DL --ignore DL002 src/train.py train.py"));
  CHECK(hook.rc == 1);
  CHECK_THAT(hook.out, Catch::Contains("in 2 files"));
}
