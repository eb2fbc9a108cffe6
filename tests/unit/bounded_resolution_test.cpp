// Bounded resolution (issue 9): the shapes that made the Python analysis recurse without end or
// blow up exponentially are analyzed with work (the model's deterministic work units, never
// time) that grows linearly with the input, and the per-file budget stops a file cleanly.
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "cli_support.h"
#include "core/analyzer.h"
#include "core/settings.h"
#include "core/source.h"

using namespace stoker;
using namespace stoker::testing;

namespace {

AnalysisResult analyze_text(const std::string& text, unsigned long long budget = Settings{}.analysis_budget) {
  Settings s;
  s.analysis_budget = budget;
  return analyze(SourceFile("shape.py", text), s);
}

// Repeats `unit(i)` n times after a prelude that makes the program a CUDA training script, so
// that every rule resolves values (a file without CUDA evidence skips most of the resolution).
std::string program(int n, const std::function<std::string(int)>& unit, const std::string& tail = "") {
  std::string src =
      "import torch\nfrom torch.utils.data import DataLoader\ndevice = torch.device('cuda')\n";
  for (int i = 0; i < n; ++i) src += unit(i);
  return src + tail;
}

// work(8n) / work(n): linear shapes stay near 8; allow up to n log n and constant set-up.
double growth(const std::function<std::string(int)>& make, int n) {
  auto small = analyze_text(make(n)), large = analyze_text(make(8 * n));
  REQUIRE(small.errors.empty());
  REQUIRE(large.errors.empty());
  REQUIRE(small.work > 0);
  return double(large.work) / double(small.work);
}

constexpr double kLinear = 8 * 3;  // 8x the input: at most 24x the work (n log n with margin)

}  // namespace

TEST_CASE("recursion through call-site parameter values terminates") {
  // Each of these recursed without bound (segmentation fault) before resolution was bounded.
  for (const char* src : {
           "import torch\ndef f(x):\n    for _ in x:\n        f(min(x, 1))\n",
           "import torch\ndef f(x):\n    for _ in x:\n        f(x if x else x)\n",
           "import torch\ndef walk(module, prefix=''):\n"
           "    for name, child in module.named_children():\n"
           "        full = f'{prefix}.{name}' if prefix else name\n"
           "        if isinstance(child, torch.nn.Linear):\n            pass\n"
           "        else:\n            walk(child, prefix=full)\n",
       }) {
    auto r = analyze_text(src);
    CHECK(r.errors.empty());
    CHECK(r.diagnostics.empty());
  }
}

TEST_CASE("self-calls, recursive returns and branches grow the work linearly") {
  // k self-calls of a function whose parameter is called in a loop: was ~k^12.
  CHECK(growth(
            [](int k) {
              std::string s = "import torch\ndef f(cb):\n    for _ in range(3):\n        cb()\n";
              for (int i = 0; i < k; ++i) s += "    f(cb)\n";
              return s + "device = torch.device('cuda')\n";
            },
            4) < kLinear);
  // Two recursive returns and a loop over the result, repeated: was 2^24 per function.
  CHECK(growth([](int n) {
          return program(n, [](int i) {
            auto f = "f" + std::to_string(i);
            return "def " + f + "():\n    if g():\n        return " + f + "()\n    return " + f + "()\nfor x in " + f +
                   "():\n    pass\n";
          });
        }, 4) < kLinear);
  // Sequential `if c: bs = bs + 1` feeding a loader's batch size.
  CHECK(growth([](int n) {
          return program(n, [](int i) { return "if c" + std::to_string(i) + ":\n    bs = bs + 1\n"; },
                         "loader = DataLoader(ds, batch_size=bs)\nfor x in loader:\n    x.to(device)\n");
        }, 8) < kLinear);
  // A chain of mutually recursive functions that all call the next and the first.
  CHECK(growth([](int n) {
          return program(n, [n](int i) {
            return "def f" + std::to_string(i) + "(x):\n    for _ in x:\n        f" + std::to_string((i + 1) % n) +
                   "(x)\n        f0(x)\n";
          });
        }, 8) < kLinear);
  // A helper called from many places whose result feeds a zip(...) loop.
  CHECK(growth([](int n) {
          return program(n, [](int i) { return "a" + std::to_string(i) + " = helper(a, b)\n"; },
                         "def helper(a, b):\n    return zip(a, b)\nfor x, y in helper(l1, l2):\n    x.to(device)\n");
        }, 8) < kLinear);
  // Long assignment chains, each link computed from the one before.
  CHECK(growth([](int n) { return program(n, [](int i) {
                                    return "x" + std::to_string(i + 1) + " = x" + std::to_string(i) + " + 1\n"; }); },
               64) < kLinear);
}

TEST_CASE("loaders and loops: work linear in the number of both") {
  // One training script replicated: every loop used to be resolved for every loader.
  std::string unit =
      "loader = DataLoader(ds, batch_size=64)\n"
      "for epoch in range(3):\n"
      "    for x, y in loader:\n"
      "        x, y = x.to(device), y.to(device)\n"
      "        loss = model(x).sum()\n"
      "        loss.backward()\n"
      "        print(loss.item())\n";
  CHECK(growth([&](int n) { return program(n, [&](int) { return unit; }); }, 4) < kLinear);
}

TEST_CASE("the work budget stops a file with a clear error and drops its findings") {
  std::string src = program(20, [](int i) {
    return "loader" + std::to_string(i) + " = DataLoader(ds)\nfor x in loader" + std::to_string(i) +
           ":\n    x = x.to(device)\n    print(x.sum().item())\n";
  });
  auto full = analyze_text(src);
  REQUIRE(full.errors.empty());
  REQUIRE(!full.diagnostics.empty());
  auto cut = analyze_text(src, full.work / 2);
  REQUIRE(cut.errors.size() == 1);
  CHECK(cut.errors.front().file == "shape.py");
  CHECK(cut.errors.front().message.find("analysis stopped: budget exceeded") == 0);
  CHECK(cut.diagnostics.empty());
  // Reproducible: the same budget stops the same file, a budget of exactly its work does not.
  CHECK(!analyze_text(src, full.work / 2).errors.empty());
  CHECK(analyze_text(src, full.work).errors.empty());

  // Through the CLI: the budget comes from configuration; the other directory's findings are
  // still printed, the stopped file is named, and the exit code says an error happened.
  TempDir dir;
  write_text(dir.path / "small/stoker.toml", "analysis-budget = 20\n");
  write_text(dir.path / "small/train.py", src);
  write_text(dir.path / "other/train.py", src);
  auto r = run_in(dir.path, stoker_command("check small other"));
  std::string all = r.out + r.err;
  INFO(all);
  CHECK(r.rc == 2);
  CHECK(all.find("small/train.py: error: analysis stopped: budget exceeded") != std::string::npos);
  CHECK(all.find("other/train.py:4:") != std::string::npos);
  CHECK(all.find("small/train.py:4:") == std::string::npos);
}

TEST_CASE("a loop inside an error-recovery node is not indexed and does not crash the walk") {
  // tree-sitter marks this recovery node as an extra: the loop in it was walked but never
  // collected (loop index -1, heap corruption).
  auto r = analyze_text("import torch\nif x:\n    (a.\nb)\n    for n in f: g()\n");
  CHECK(r.errors.empty());
  CHECK(!r.notices.empty());  // the syntax error is said
}

TEST_CASE("deep expression chains stay within the depth bound") {
  // An attribute chain, a binary chain and nested calls far deeper than any resolution
  // should follow: unknown past the bound, no stack overflow.
  std::string attr = "x = a", sum = "y = 1", call = "z = ";
  for (int i = 0; i < 20000; ++i) attr += ".b", sum += " + 1";
  for (int i = 0; i < 400; ++i) call += "f(";
  call += std::string(400, ')');
  auto r = analyze_text("import torch\ndevice = torch.device('cuda')\n" + attr + "\n" + sum + "\n" + call +
                        "\nfor q in x:\n    q.to(device)\n    print(y, z)\n");
  CHECK(r.errors.empty());
}
