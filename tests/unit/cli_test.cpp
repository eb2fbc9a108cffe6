// End-to-end: the real `stoker` binary on real files, including bad input.
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_support.h"

namespace fs = std::filesystem;
using stoker::testing::run_stoker;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/stoker-test-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = path / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
};

const char* kStarved = R"(import torch
from torch.utils.data import DataLoader
loader = DataLoader(ds, batch_size=64)
model = Net().cuda()
for x in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
)";

}  // namespace

TEST_CASE("check reports findings with exit 1, and exit 0 with --exit-zero") {
  TempDir d;
  auto f = d.write("train.py", kStarved);
  auto r = run_stoker("check --no-color " + f.string());
  CHECK(r.rc == 1);
  CHECK(r.out.find("DL001") != std::string::npos);
  CHECK(r.out.find("train.py:3:10: DL001") != std::string::npos);
  CHECK(r.out.find("^^^") != std::string::npos);
  CHECK(run_stoker("check --exit-zero " + f.string()).rc == 0);
  auto sel = run_stoker("check --select SY --no-color " + f.string());
  CHECK(sel.out.find("DL001") == std::string::npos);
  CHECK(run_stoker("check --select XX9 " + f.string()).rc == 2);
}

TEST_CASE("JSON output has ruff's shape plus severity") {
  TempDir d;
  auto f = d.write("train.py", kStarved);
  auto r = run_stoker("check --output-format json " + f.string() + " 2>/dev/null");
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.is_array());
  REQUIRE_FALSE(j.empty());
  for (const auto& item : j) {
    for (const char* key : {"code", "message", "filename", "location", "end_location", "fix", "url", "noqa_row", "severity"})
      CHECK(item.contains(key));
    CHECK(item["location"]["row"].get<int>() >= 1);
  }
}

TEST_CASE("directories are walked, honouring .gitignore and skipping virtualenvs") {
  TempDir d;
  d.write("pkg/train.py", kStarved);
  d.write("pkg/ignored/train.py", kStarved);
  d.write("pkg/.venv/lib/train.py", kStarved);
  d.write("pkg/node_modules/x/train.py", kStarved);
  d.write("pkg/.gitignore", "ignored/\n");
  REQUIRE(std::system(("git init -q " + (d.path / "pkg").string()).c_str()) == 0);
  auto r = run_stoker("check --output-format concise " + (d.path / "pkg").string());
  CHECK(r.out.find("pkg/train.py") != std::string::npos);
  CHECK(r.out.find("ignored") == std::string::npos);
  CHECK(r.out.find(".venv") == std::string::npos);
  CHECK(r.out.find("node_modules") == std::string::npos);
}

TEST_CASE("bad input: clear messages, nothing lost, no crash") {
  TempDir d;
  auto good = d.write("good.py", kStarved);

  SECTION("a missing path") {
    auto r = run_stoker("check " + (d.path / "nope.py").string() + " " + good.string());
    CHECK(r.rc == 2);
    CHECK(r.out.find("no such file or directory") != std::string::npos);
    CHECK(r.out.find("DL001") != std::string::npos);  // the other file is still analyzed
  }
  SECTION("a directory without Python files") {
    d.write("empty/readme.txt", "hello");
    auto r = run_stoker("check " + (d.path / "empty").string());
    CHECK(r.rc == 0);
    CHECK(r.out.find("no Python or C++/CUDA files") != std::string::npos);
  }
  SECTION("an unreadable file") {
    auto bad = d.write("locked.py", kStarved);
    chmod(bad.c_str(), 0);
    std::string cmd = "check " + bad.string() + " " + good.string();
    if (geteuid() == 0) cmd = "check " + bad.string() + "/ " + good.string();  // root reads anything: use a path that cannot be opened
    auto r = run_stoker(cmd);
    CHECK(r.rc == 2);
    CHECK(r.out.find("error") != std::string::npos);
    CHECK(r.out.find("good.py") != std::string::npos);
  }
  SECTION("invalid UTF-8 and binary files are skipped with a message") {
    auto latin = d.write("latin.py", "import torch\nx = '\xe9'\n");
    auto bin = d.write("blob.py", std::string("import torch\0\x01\x02", 15));
    auto r = run_stoker("check " + latin.string() + " " + bin.string() + " " + good.string());
    CHECK(r.out.find("invalid UTF-8 at byte") != std::string::npos);
    CHECK(r.out.find("binary file") != std::string::npos);
    CHECK(r.out.find("good.py") != std::string::npos);
  }
  SECTION("a syntax error is a notice, and what parses is still analyzed") {
    std::string text = std::string(kStarved) + "def broken(:\n    pass\n";
    auto f = d.write("broken.py", text);
    auto r = run_stoker("check --no-color " + f.string());
    CHECK(r.out.find("notice: syntax error") != std::string::npos);
    CHECK(r.out.find("DL001") != std::string::npos);
  }
  SECTION("a 10 MB file") {
    std::string big = kStarved;
    while (big.size() < 10u * 1024 * 1024) big += "value_" + std::to_string(big.size()) + " = [1, 2, 3]\n";
    auto f = d.write("big.py", big);
    auto r = run_stoker("check --output-format concise " + f.string());
    CHECK(r.rc == 1);
    CHECK(r.out.find("DL001") != std::string::npos);
  }
  SECTION("deeply nested expressions") {
    std::string deep = "import torch\nx = " + std::string(3000, '(') + "1" + std::string(3000, ')') + "\n";
    deep += "y = " + std::string(2000, '[') + std::string(2000, ']') + "\n";
    deep += "z = torch.zeros(1).cuda()" + std::string(500, '+') + "1\n";
    auto f = d.write("deep.py", deep);
    auto r = run_stoker("check " + f.string());
    CHECK((r.rc == 0 || r.rc == 1));
  }
}

TEST_CASE("rule and version commands") {
  auto r = run_stoker("rule DL001");
  CHECK(r.rc == 0);
  CHECK(r.out.find("## What it does") != std::string::npos);
  auto all = run_stoker("rule --all");
  CHECK(all.out.find("SY004") != std::string::npos);
  CHECK(run_stoker("rule ZZ999").rc == 2);
  CHECK(run_stoker("version").out.rfind("stoker ", 0) == 0);
  CHECK(run_stoker("--help").rc == 0);
}

TEST_CASE("C++ analysis leaves the process working directory alone for the other files") {
  TempDir d;
  d.write("proj/a_kernel.cu", "#include <cuda_runtime.h>\nvoid f(float* d, const float* h) {\n  for (int i = 0; i < 10; ++i) cudaMemcpy(d, h, 4, cudaMemcpyHostToDevice);\n}\n");
  d.write("proj/z_train.py", kStarved);
  std::string cmd = "cd " + d.path.string() + " && " + std::string(STOKER_BINARY) +
                    " check --threads 1 --output-format concise proj 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  pclose(p);
  INFO(out);
  CHECK(out.find("cannot read") == std::string::npos);
  CHECK(out.find("proj/z_train.py") != std::string::npos);
}
