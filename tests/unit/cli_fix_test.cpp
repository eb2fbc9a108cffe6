// The real binary: fixing and impact options, exit codes, `stoker impact`.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_support.h"

namespace fs = std::filesystem;
using stoker::testing::run_stoker;
using stoker::testing::TempSource;


TEST_CASE("an unknown GPU profile or workload key is a usage error (exit 2)") {
  TempSource f("train.py", "import torch\n");
  auto r = run_stoker("check --gpu tpu-v5 " + f.path.string());
  CHECK(r.rc == 2);
  CHECK_THAT(r.out, Catch::Contains("unknown GPU profile `tpu-v5`") && Catch::Contains("h100-sxm"));
  r = run_stoker("check --workload steps=3 " + f.path.string());
  CHECK(r.rc == 2);
  CHECK_THAT(r.out, Catch::Contains("expected KEY=VALUE") || Catch::Contains("unknown workload key"));
  r = run_stoker("check --workload gpu-count=3 " + f.path.string());
  CHECK(r.rc == 2);
  CHECK_THAT(r.out, Catch::Contains("unknown workload key `gpu-count`"));
}

TEST_CASE("diff and fix modes on a file with nothing to fix change nothing and exit 0") {
  const std::string text = "import torch\nx = torch.zeros(3)\n";
  TempSource f("train.py", text);
  auto r = run_stoker("check --diff " + f.path.string());
  CHECK(r.rc == 0);
  CHECK(r.out.empty());
  r = run_stoker("check --fix --show-fixes --gpu h100-sxm " + f.path.string());
  CHECK(r.rc == 0);
  CHECK_THAT(r.out, Catch::Contains("No fixes applied") || Catch::Contains("All checks passed"));
  std::ifstream in(f.path);
  std::string now((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(now == text);
}

TEST_CASE("stoker impact evaluates one model for given numbers") {
  auto r = run_stoker("impact serial-loader --gpu a100-sxm --workload step-time-ms=50 --workload load-time-ms=100 "
               "--workload workers=4");
  REQUIRE(r.rc == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["model"] == "serial-loader");
  CHECK(j["profile"] == "a100-sxm");
  CHECK(j["gain_pp"][0].get<double>() == Approx(200.0 / 3));
  CHECK(j["idle_after"][1].get<double>() == 0);
  CHECK(run_stoker("impact warp-drive").rc == 2);
  CHECK(run_stoker("impact sync-bubble --fact amortize_every").rc == 2);
}

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
}  // namespace

TEST_CASE("diff then fix a real fixture saved with a BOM and CRLF line endings") {
  std::string lf = slurp(fs::path(STOKER_SOURCE_DIR) / "tests/fixtures/python/TX001.py");
  REQUIRE(!lf.empty());
  std::string crlf;
  for (char c : lf) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  const std::string original = "\xEF\xBB\xBF" + crlf;
  TempSource f("train.py", original);
  {
    std::ofstream(f.path, std::ios::binary) << original;
  }
  fs::permissions(f.path, fs::perms(0750));

  auto diff = run_stoker("check --diff " + f.path.string());
  CHECK(diff.rc == 1);
  CHECK_THAT(diff.out, Catch::Contains("non_blocking=True") && Catch::Contains("@@ -"));
  CHECK(slurp(f.path) == original);  // --diff never writes

  auto json = run_stoker("check --output-format json --exit-zero " + f.path.string() + " 2>/dev/null");
  auto arr = nlohmann::json::parse(json.out.substr(0, json.out.rfind(']') + 1));
  REQUIRE(!arr.empty());
  for (const auto& d : arr) {
    INFO(d["code"]);
    if (d["code"].get<std::string>().rfind("DL", 0) == 0) continue;  // DL documents may not be merged yet
    REQUIRE(d["impact"].is_object());
    CHECK(d["impact"]["gain_pp"][0].get<double>() >= 0);
    CHECK(d["impact"]["gain_pp"][1].get<double>() <= 100);
    CHECK(!d["impact"]["assumptions"].empty());
  }

  auto fixed = run_stoker("check --fix --show-fixes --gpu h100-sxm " + f.path.string());
  CHECK_THAT(fixed.out, Catch::Contains("Fixed ") && Catch::Contains("TX001"));
  CHECK_THAT(fixed.out, Catch::Contains("est. GPU busy") && Catch::Contains("after all fixes (h100-sxm)"));
  std::string now = slurp(f.path);
  CHECK(now != original);
  CHECK(now.rfind("\xEF\xBB\xBF", 0) == 0);
  size_t bare_lf = 0;
  for (size_t i = 0; i < now.size(); ++i)
    if (now[i] == '\n' && (i == 0 || now[i - 1] != '\r')) ++bare_lf;
  CHECK(bare_lf == 0);
  CHECK((fs::status(f.path).permissions() & fs::perms::all) == fs::perms(0750));
  // Converged: nothing safe is left to fix.
  auto again = run_stoker("check --diff " + f.path.string());
  CHECK(again.rc == 0);
  CHECK(again.out.empty());
}
