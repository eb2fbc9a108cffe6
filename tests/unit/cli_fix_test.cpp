// The real binary: fixing and impact options, exit codes, `stoker impact`.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

struct Run {
  int rc;
  std::string out;
};

Run run(const std::string& args) {
  std::string cmd = std::string(STOKER_BINARY) + " " + args + " 2>&1";
  Run r{0, {}};
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = ::pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

struct TempFile {
  fs::path path;
  explicit TempFile(const std::string& text) {
    std::string tmpl = (fs::temp_directory_path() / "stoker-cli-XXXXXX").string();
    fs::path dir = ::mkdtemp(tmpl.data());
    path = dir / "train.py";
    std::ofstream(path) << text;
  }
  ~TempFile() { fs::remove_all(path.parent_path()); }
};

}  // namespace

TEST_CASE("an unknown GPU profile or workload key is a usage error (exit 2)") {
  TempFile f("import torch\n");
  auto r = run("check --gpu tpu-v5 " + f.path.string());
  CHECK(r.rc == 2);
  CHECK_THAT(r.out, Catch::Contains("unknown GPU profile `tpu-v5`") && Catch::Contains("h100-sxm"));
  r = run("check --workload steps=3 " + f.path.string());
  CHECK(r.rc == 2);
  CHECK_THAT(r.out, Catch::Contains("expected KEY=VALUE") || Catch::Contains("unknown workload key"));
  r = run("check --workload gpu-count=3 " + f.path.string());
  CHECK(r.rc == 2);
  CHECK_THAT(r.out, Catch::Contains("unknown workload key `gpu-count`"));
}

TEST_CASE("diff and fix modes on a file with nothing to fix change nothing and exit 0") {
  const std::string text = "import torch\nx = torch.zeros(3)\n";
  TempFile f(text);
  auto r = run("check --diff " + f.path.string());
  CHECK(r.rc == 0);
  CHECK(r.out.empty());
  r = run("check --fix --show-fixes --gpu h100-sxm " + f.path.string());
  CHECK(r.rc == 0);
  CHECK_THAT(r.out, Catch::Contains("No fixes applied") || Catch::Contains("All checks passed"));
  std::ifstream in(f.path);
  std::string now((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(now == text);
}

TEST_CASE("stoker impact evaluates one model for given numbers") {
  auto r = run("impact serial-loader --gpu a100-sxm --workload step-time-ms=50 --workload load-time-ms=100 "
               "--workload workers=4");
  REQUIRE(r.rc == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["model"] == "serial-loader");
  CHECK(j["profile"] == "a100-sxm");
  CHECK(j["gain_pp"][0].get<double>() == Approx(200.0 / 3));
  CHECK(j["idle_after"][1].get<double>() == 0);
  CHECK(run("impact warp-drive").rc == 2);
  CHECK(run("impact sync-bubble --fact amortize_every").rc == 2);
}
