// End-to-end tests of the CI integrations with the real consumers: Microsoft's SARIF Multitool
// validates the SARIF for every fixture, pre-commit installs and runs this repository's hook,
// Python's XML parser reads the JUnit report, and --add-ignore round-trips on real findings.
#include <catch2/catch.hpp>
#include <regex>

#include "cli_support.h"
#include "core/source.h"

using namespace stoker::testing;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = STOKER_SOURCE_DIR;

// A CUDA training script whose loader has no workers (DL001), and the same script fixed.
const char* kStarvedScript = R"py(import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    ds = TensorDataset(torch.randn(4096, 32), torch.randn(4096, 1))
    model = torch.nn.Linear(32, 1).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(ds, batch_size=256, shuffle=True)
    for x, y in loader:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
)py";

std::string fixed_script() {
  std::string s = kStarvedScript;
  std::string from = "DataLoader(ds, batch_size=256, shuffle=True)";
  s.replace(s.find(from), from.size(), "DataLoader(ds, batch_size=256, shuffle=True, num_workers=4, pin_memory=True)");
  return s;
}

std::string env_prefix(const fs::path& home) {
  fs::path bin = fs::path(STOKER_BINARY).parent_path();
  return "env HOME=" + shell_quote(home.string()) + " GIT_CONFIG_NOSYSTEM=1 PRE_COMMIT_HOME=" +
         shell_quote((home / "pre-commit-cache").string()) + " PATH=" + shell_quote(bin.string()) + ":\"$PATH\" ";
}

}  // namespace

TEST_CASE("SARIF output passes the SARIF Multitool's validation for every fixture") {
  fs::path tool = kSource / "tests/tools/node_modules/@microsoft/sarif-multitool/bin.js";
  INFO("the SARIF Multitool is installed by ./setup.sh (npm ci in tests/tools)");
  REQUIRE(fs::exists(tool));
  TempDir out;
  std::vector<fs::path> sarif_files;
  auto emit = [&](const fs::path& cwd, const std::string& args, bool expect_errors = false) {
    fs::path file = out / ("run" + std::to_string(sarif_files.size()) + ".sarif");
    auto r = run_in(cwd, stoker_command("check --exit-zero --output-format sarif " + args) + " > " +
                             shell_quote(file.string()));
    INFO(args << "\n" << r.err);
    CHECK(r.rc == (expect_errors ? 2 : 0));
    sarif_files.push_back(file);
  };

  // The fixture and example trees as wholes, then the fixtures in groups of 16 named files (each
  // group one run: one stoker process per fixture made this test the slowest of the suite, and
  // under the sanitizers it outgrew ctest's 600-second timeout on a 2-core machine).
  std::vector<std::string> fixtures;
  for (const char* dir : {"tests/fixtures", "examples"}) {
    if (!fs::is_directory(kSource / dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(kSource / dir))
      if (e.is_regular_file() && stoker::language_for_path(e.path().string()) != stoker::Language::Unknown)
        fixtures.push_back(fs::relative(e.path(), kSource).string());
    emit(kSource, dir);
  }
  std::sort(fixtures.begin(), fixtures.end());
  constexpr size_t kGroup = 16;
  for (size_t i = 0; i < fixtures.size(); i += kGroup) {
    std::string args = "--report-unused-ignores";
    for (size_t j = i; j < std::min(fixtures.size(), i + kGroup); ++j) args += " " + shell_quote(fixtures[j]);
    emit(kSource, args);
  }

  // Results with fixes (ST001), notices, related locations, a missing input, odd file names.
  TempDir project;
  write_text(project / "stale.py",
             "import torch\nx = torch.ones(3)  # stoker: ignore[SY001] -- gone\n# stoker: ignore[SY001]\ny = 1\n");
  write_text(project / "dir with space/k\xC3\xA9.cu",
             "// stoker: ignore-file[SY001]\n__global__ void k() {}\nvoid f() { cudaDeviceSynchronize(); }  // NOLINT(stoker-SY001)\n");
  write_text(project / "bad.py", "import torch\nx = (  # stoker: ignore[NOPE9]\n");
  emit(project.path, "--report-unused-ignores .");
  emit(project.path, "--report-unused-ignores stale.py missing.py", true);

  // A negative control: the validator must reject a broken log.
  fs::path control = out / "control.sarif";
  write_text(control,
             R"({"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [{"tool":
  {"driver": {"name": "x"}}, "results": [{"ruleId": "R1", "message": {"text": "m."}, "locations": [
  {"physicalLocation": {"artifactLocation": {"uri": "a.py"}, "region": {"startLine": 0}}}]}]}]})");

  std::string files;
  for (const auto& f : sarif_files) files += " " + shell_quote(f.string());
  auto r = run_in(out.path, "node " + shell_quote(tool.string()) + " validate" + files + " " +
                                shell_quote(control.string()));
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("Done. " + std::to_string(sarif_files.size() + 1) + " files scanned.") != std::string::npos);
  std::regex line_re(R"(^(.*\.sarif)\(\d+,\d+\): (error|warning) ([A-Z]+\d+): )");
  size_t control_errors = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, line_re)) continue;
    if (m[1] == control.string()) {
      control_errors += m[2] == "error";
      continue;
    }
    // Our logs: no errors, and no warnings either.
    FAIL_CHECK("Multitool: " << line);
  }
  CHECK(control_errors >= 1);
}

TEST_CASE("STOKER_OUTPUT_FORMAT sets the default format, the flag wins, bad values exit 2") {
  TempDir d;
  write_text(d / "a.py", "import torch\nx = 1  # stoker: ignore[SY001]\n");
  auto r = run_in(d.path, "STOKER_OUTPUT_FORMAT=github " + stoker_command("check --report-unused-ignores a.py"));
  CHECK(r.rc == 1);
  CHECK(r.out.rfind("::warning file=a.py,line=2,col=10,endLine=2,endColumn=31,title=stoker ST001", 0) == 0);
  r = run_in(d.path,
             "STOKER_OUTPUT_FORMAT=github " + stoker_command("check --report-unused-ignores --output-format json a.py"));
  CHECK(r.out.rfind("[", 0) == 0);
  r = run_in(d.path, "STOKER_OUTPUT_FORMAT=xml " + stoker_command("check a.py"));
  CHECK(r.rc == 2);
  CHECK(r.err.find("xml") != std::string::npos);
}

TEST_CASE("JUnit output is well-formed XML with one test case per file (read by Python's XML parser)") {
  TempDir d;
  write_text(d / "a.py", "import torch\nx = 1  # stoker: ignore[SY001] -- <old> & \"stale\"\n");
  write_text(d / "b.py", "import torch\n");
  write_text(d / "c.py", "print('no torch here')\n");
  auto r = run_in(d.path, stoker_command("check --report-unused-ignores --output-format junit . > report.xml"));
  CHECK(r.rc == 1);
  r = run_in(d.path,
             "python3 -c \"import xml.etree.ElementTree as E; r = E.parse('report.xml').getroot(); "
             "print(r.tag, r.get('tests'), r.get('failures'), sorted(c.get('name') for c in r.iter('testcase')), "
             "[f.get('message') for f in r.iter('failure')])\"");
  INFO(r.err);
  CHECK(r.rc == 0);
  CHECK(r.out == "testsuites 3 1 ['a.py', 'b.py', 'c.py'] ['1 finding']\n");
}

TEST_CASE("add-ignore suppresses every current finding, the next run is clean") {
  TempDir d;
  write_text(d / "train.py", kStarvedScript);
  write_text(d / "kernels.cu", "void f(float* d, float* h, int n) {\n  for (int i = 0; i < n; ++i) {\n"
                               "    cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);\n    cudaDeviceSynchronize();\n  }\n}\n");
  auto before = run_in(d.path, stoker_command("check --output-format concise ."));
  INFO(before.out << before.err);
  REQUIRE(before.rc == 1);  // the starved script has findings
  CHECK(before.out.find("train.py:9:14: DL001") != std::string::npos);
  auto add = run_in(d.path, stoker_command("check --add-ignore ."));
  CHECK(add.rc == 0);
  CHECK(add.out.find("Added ") == 0);
  CHECK(read_text(d / "train.py").find("DataLoader(ds, batch_size=256, shuffle=True)  # stoker: ignore[DL001") !=
        std::string::npos);
  auto after = run_in(d.path, stoker_command("check --report-unused-ignores ."));
  INFO(after.out);
  CHECK(after.rc == 0);
  // Running it again adds nothing.
  auto again = run_in(d.path, stoker_command("check --add-ignore ."));
  CHECK(again.out.find("Added 0 suppression comments in 0 files.") == 0);
}

namespace {

// A throwaway project whose .pre-commit-config.yaml uses one hook of this checkout's
// .pre-commit-hooks.yaml, installed with the real pre-commit tool.
struct PreCommitProject {
  TempDir d;
  fs::path hooks = d / "hooks", proj = d / "proj";
  std::string env = env_prefix(d.path);
  CommandResult git(const fs::path& dir, const std::string& args) { return run_in(dir, env + "git " + args); }

  // `args`: a YAML flow list for the hook's `args:` (none when empty).
  explicit PreCommitProject(const std::string& hook_id, const std::string& args = "") {
    fs::create_directories(hooks);
    fs::copy_file(kSource / ".pre-commit-hooks.yaml", hooks / ".pre-commit-hooks.yaml");
    for (const auto& dir : {hooks, proj}) {
      fs::create_directories(dir);
      REQUIRE(git(dir, "init -q -b main").rc == 0);
      git(dir, "config user.email test@example.com");
      git(dir, "config user.name test");
      git(dir, "config commit.gpgsign false");
    }
    REQUIRE(git(hooks, "add .pre-commit-hooks.yaml").rc == 0);
    REQUIRE(git(hooks, "commit -q -m hooks").rc == 0);
    std::string rev = git(hooks, "rev-parse HEAD").out;
    rev.erase(rev.find_last_not_of("\n") + 1);
    write_text(proj / ".pre-commit-config.yaml", "repos:\n  - repo: " + hooks.string() + "\n    rev: " + rev +
                                                     "\n    hooks:\n      - id: " + hook_id + "\n" +
                                                     (args.empty() ? "" : "        args: " + args + "\n"));
    auto install = run_in(proj, env + "pre-commit install");
    INFO(install.out << install.err);
    REQUIRE(install.rc == 0);
    REQUIRE(git(proj, "add .pre-commit-config.yaml").rc == 0);
    auto first = git(proj, "commit -q -m config");
    INFO(first.out << first.err);
    REQUIRE(first.rc == 0);
  }
  CommandResult commit(const std::string& file, const std::string& text, const std::string& message) {
    write_text(proj / file, text);
    REQUIRE(git(proj, "add " + file).rc == 0);
    return git(proj, "commit -m " + message);
  }
  std::string commits() { return git(proj, "rev-list --count HEAD").out; }
};

}  // namespace

TEST_CASE("pre-commit: this repository's hook rejects a starved script and accepts the fixed one") {
  // The language-system hook, with the built binary on PATH; the language-python `stoker` hook
  // (the wheel) is tested from a clean cache in tests/install/pre_commit_python_hook_test.sh.
  PreCommitProject p("stoker-system");
  auto rejected = p.commit("train.py", kStarvedScript, "starved");
  INFO(rejected.out << rejected.err);
  CHECK(rejected.rc != 0);
  CHECK((rejected.out + rejected.err).find("DL001") != std::string::npos);
  CHECK(p.commits() == "1\n");

  auto accepted = p.commit("train.py", fixed_script(), "fixed");
  INFO(accepted.out << accepted.err);
  CHECK(accepted.rc == 0);
  CHECK((accepted.out + accepted.err).find("stoker...") != std::string::npos);
  CHECK((accepted.out + accepted.err).find("Passed") != std::string::npos);
  CHECK(p.commits() == "2\n");
}

TEST_CASE("pre-commit: the stoker-fix hook fixes the staged script, and the re-staged fix commits") {
  PreCommitProject p("stoker-fix-system");
  auto first = p.commit("train.py", kStarvedScript, "starved");
  INFO(first.out << first.err);
  CHECK(first.rc != 0);  // pre-commit fails a hook that modified files
  std::string fixed = read_text(p.proj / "train.py");
  CHECK(fixed.find("num_workers=") != std::string::npos);
  CHECK(fixed.find("pin_memory=True") != std::string::npos);
  CHECK(p.commits() == "1\n");
  auto second = p.commit("train.py", fixed, "fixed");
  INFO(second.out << second.err);
  CHECK(second.rc == 0);
  CHECK(p.commits() == "2\n");
}

TEST_CASE("action.yml: its shell steps install, run and report as a workflow would run them") {
  TempDir d;
  write_text(d / "proj/a.py", "import torch\nx = 1  # stoker: ignore[SY001]\n");
  // Extract the steps with a real YAML parser (PyYAML, which pre-commit depends on).
  auto r = run_in(d.path, "/usr/bin/python3 -c \"import yaml, sys\n"
                          "a = yaml.safe_load(open(sys.argv[1]))\n"
                          "assert a['runs']['using'] == 'composite'\n"
                          "for i, s in enumerate(a['runs']['steps']):\n"
                          "    if 'run' in s: open('step_%s.sh' % s.get('id', i), 'w').write(s['run'])\n"
                          "    else: print(s['uses'])\n"
                          "print(sorted(a['inputs']))\" " +
                              shell_quote((kSource / "action.yml").string()));
  INFO(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.out == "actions/cache@v4\ngithub/codeql-action/upload-sarif@v3\n"
                 "['args', 'category', 'fail-on-findings', 'format', 'paths', 'sarif-file', 'stoker', 'version']\n");
  std::string outputs = (d / "github_output").string();
  // With `stoker:` set, the install step uses that binary (the download path is tested with a
  // local release in tests/install/release_and_action_test.sh).
  r = run_in(d / "proj", "env GITHUB_OUTPUT=" + shell_quote(outputs) + " STOKER_INPUT=" + shell_quote(STOKER_BINARY) +
                             " bash -e ../step_install.sh");
  CHECK(r.rc == 0);
  CHECK(read_text(outputs) == std::string("bin=") + STOKER_BINARY + "\n");
  std::filesystem::remove(outputs);
  std::string run_env = "env GITHUB_OUTPUT=" + shell_quote(outputs) + " STOKER_BIN=" + shell_quote(STOKER_BINARY) +
                        " STOKER_PATHS=. STOKER_ARGS=--report-unused-ignores STOKER_SARIF=out.sarif ";
  r = run_in(d / "proj", run_env + "STOKER_FORMAT=sarif bash -e ../step_run.sh");
  CHECK(r.rc == 0);
  CHECK(read_text(outputs) == "sarif-file=out.sarif\nexit-code=1\n");
  CHECK(read_text(d / "proj/out.sarif").find("\"ruleId\": \"ST001\"") != std::string::npos);
  r = run_in(d / "proj", run_env + "STOKER_FORMAT=github bash -e ../step_run.sh");
  CHECK(r.rc == 0);
  CHECK(r.out.rfind("::warning file=a.py,line=2", 0) == 0);
  // A configuration error fails the step.
  write_text(d / "proj/stoker.toml", "nonsense = 1\n");
  r = run_in(d / "proj", run_env + "STOKER_FORMAT=sarif bash -e ../step_run.sh");
  CHECK(r.rc == 2);
  CHECK(r.err.find("stoker.toml:1:1: `nonsense`: unknown key") != std::string::npos);
}

TEST_CASE("pre-commit: args with selectors go before the staged file names, which stay file names") {
  // pre-commit runs `entry args... files...`: `--select` must take its one value only.
  PreCommitProject p("stoker-system", "[--select, \"DL,TX\", --ignore, DL002]");
  auto rejected = p.commit("train.py", kStarvedScript, "starved");
  INFO(rejected.out << rejected.err);
  CHECK(rejected.rc != 0);
  CHECK((rejected.out + rejected.err).find("DL001") != std::string::npos);
  CHECK((rejected.out + rejected.err).find("DL002") == std::string::npos);
  CHECK((rejected.out + rejected.err).find("unknown rule selector") == std::string::npos);
  CHECK(p.commits() == "1\n");
}
