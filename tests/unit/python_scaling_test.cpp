// Complexity guards for the Python analysis (never timing assertions): large inputs must be
// analyzed at all, with the findings of a small one. The [scaling] cases are hidden from test
// discovery and registered as one ctest test with a timeout (tests/CMakeLists.txt), so that a
// quadratic regression fails by timing out instead of making every run slow.
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "core/analyzer.h"
#include "core/settings.h"
#include "core/source.h"
#include "python/parser.h"

using namespace stoker;

namespace {

// The shape bench/lsp/latency.py generates: model blocks and schedules, then two loaders and
// a training and an evaluation loop.
std::string training_script(int lines) {
  std::vector<std::string> head = {
      "import argparse",
      "import os",
      "import torch",
      "import torch.nn as nn",
      "import torch.nn.functional as F",
      "from torch.utils.data import DataLoader, TensorDataset",
      "",
      "parser = argparse.ArgumentParser()",
      "parser.add_argument('--batch-size', type=int, default=64)",
      "parser.add_argument('--epochs', type=int, default=10)",
      "args = parser.parse_args()",
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')",
      "",
  };
  std::vector<std::string> tail = {
      "",
      "def evaluate(model, loader):",
      "    model.eval()",
      "    total = 0.0",
      "    with torch.no_grad():",
      "        for x, y in loader:",
      "            x, y = x.to(device), y.to(device)",
      "            total += F.mse_loss(model(x), y).item()",
      "    return total",
      "",
      "",
      "def main():",
      "    train_ds = TensorDataset(torch.randn(4096, 64), torch.randn(4096, 64))",
      "    val_ds = TensorDataset(torch.randn(512, 64), torch.randn(512, 64))",
      "    train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)",
      "    val_loader = DataLoader(val_ds, batch_size=args.batch_size)",
      "    model = Block0().to(device)",
      "    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)",
      "    for epoch in range(args.epochs):",
      "        model.train()",
      "        for step, (x, y) in enumerate(train_loader):",
      "            x, y = x.to(device), y.to(device)",
      "            loss = F.mse_loss(model(x), y)",
      "            opt.zero_grad()",
      "            loss.backward()",
      "            opt.step()",
      "            print(epoch, step, loss.item())",
      "        print('val', evaluate(model, val_loader))",
      "",
      "",
      "if __name__ == '__main__':",
      "    main()",
  };
  std::vector<std::string> body;
  for (int i = 0; head.size() + body.size() + tail.size() < static_cast<size_t>(lines); ++i) {
    std::vector<std::string> block = {
        "",
        "class Block" + std::to_string(i) + "(nn.Module):",
        "    def __init__(self, width=" + std::to_string(64 + i % 7) + "):",
        "        super().__init__()",
        "        self.fc1 = nn.Linear(width, width)",
        "        self.fc2 = nn.Linear(width, width)",
        "        self.norm = nn.LayerNorm(width)",
        "",
        "    def forward(self, x):",
        "        h = F.relu(self.fc1(x))",
        "        return self.norm(x + self.fc2(h))",
        "",
        "",
        "def schedule_" + std::to_string(i) + "(step, warmup=100):",
        "    if step < warmup:",
        "        return step / warmup",
        "    return 0.5 * (1 + torch.cos(torch.tensor(step / " + std::to_string(1000 + i) + ")).item())",
    };
    body.insert(body.end(), block.begin(), block.end());
  }
  body.resize(lines - head.size() - tail.size());
  std::string out;
  for (const auto* part : {&head, &body, &tail})
    for (const auto& l : *part) out += l + "\n";
  return out;
}

AnalysisResult analyze_text(const std::string& path, std::string text) {
  SourceFile file(path, std::move(text));
  return analyze(file, Settings{});
}

// What a finding says, without where it is.
std::vector<std::tuple<std::string, std::string, int>> findings(const AnalysisResult& r) {
  std::vector<std::tuple<std::string, std::string, int>> out;
  for (const auto& d : r.diagnostics) out.emplace_back(d.code, d.message, static_cast<int>(d.severity));
  return out;
}

}  // namespace

TEST_CASE("a generated 20000-line training script is analyzed with the findings of the 2000-line script",
          "[.scaling]") {
  auto small = analyze_text("train_2000.py", training_script(2000));
  auto large = analyze_text("train_20000.py", training_script(20000));
  REQUIRE(small.notices.empty());
  REQUIRE(large.notices.empty());
  // The loops sit at the end of both files: the same findings, shifted.
  REQUIRE(small.diagnostics.size() >= 5);
  CHECK(findings(large) == findings(small));
}

TEST_CASE("a 10 MB file (a training script then 150000 comment lines) is analyzed like the script alone",
          "[.scaling]") {
  std::string script = training_script(2000);
  std::string padded = script;
  for (int i = 0; i < 150000; ++i) padded += "# padding " + std::to_string(i) + ": a long comment line that only makes the file large\n";
  REQUIRE(padded.size() > 10'000'000);
  auto plain = analyze_text("train.py", script);
  auto big = analyze_text("train.py", padded);
  REQUIRE(big.notices.empty());
  REQUIRE(plain.diagnostics.size() >= 5);
  REQUIRE(big.diagnostics.size() == plain.diagnostics.size());
  for (size_t i = 0; i < big.diagnostics.size(); ++i) {
    CHECK(big.diagnostics[i].code == plain.diagnostics[i].code);
    CHECK(big.diagnostics[i].range == plain.diagnostics[i].range);
    CHECK(big.diagnostics[i].message == plain.diagnostics[i].message);
  }
}

TEST_CASE("70000 consecutive comment lines after a statement parse (tree-sitter 0.20 aborts on 65535 extras)") {
  // The comments sit between the imports and the rest of the script: the findings stay the same
  // (their offsets move by the comments' length).
  std::string script = training_script(300);
  size_t cut = script.find("\nparser = ");
  REQUIRE(cut != std::string::npos);
  std::string comments;
  for (int i = 0; i < 70000; ++i) comments += "# c\n\n";
  std::string padded = script.substr(0, cut + 1) + comments + script.substr(cut + 1);
  auto plain = analyze_text("train.py", script);
  auto padded_result = analyze_text("train.py", padded);
  REQUIRE(padded_result.notices.empty());
  REQUIRE(!plain.diagnostics.empty());
  CHECK(findings(padded_result) == findings(plain));
  // A string whose lines look like comments keeps its text (the workaround never touches a line
  // that could end or escape a string, and blanking others leaves the string's extent alone).
  std::string in_string = "import torch\nNOTE = \"\"\"\n";
  for (int i = 0; i < 70000; ++i) in_string += "# not a comment\n";
  in_string += "\"\"\"\nx = torch.zeros(3).cuda()\nprint(x.sum().item(), NOTE)\n";
  python::ParsedModule module(in_string);
  REQUIRE(!module.has_errors());
  python::Node assignment = python::named_child(python::named_child(module.root(), 1), 0);
  python::Node string = python::field(assignment, "right");
  REQUIRE(python::is(string, "string"));
  size_t close = in_string.find("\"\"\"\nx = ");
  CHECK(python::start(string) == in_string.find("\"\"\"\n"));
  CHECK(python::end(string) == close + 3);
  CHECK(analyze_text("notes.py", in_string).notices.empty());
}
