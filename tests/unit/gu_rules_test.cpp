// GU rules: target-torch-version (parsing, configuration, the project's declared requirement,
// the version-dependent defaults of GU009/GU011), and the GU fixes applied and re-parsed.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "core/config.h"
#include "core/torch_version.h"
#include "python/parser.h"
#include "test_support.h"

using namespace stoker;
namespace fs = std::filesystem;

namespace {

size_t count(const AnalysisResult& r, std::string_view code) {
  return static_cast<size_t>(std::count_if(r.diagnostics.begin(), r.diagnostics.end(),
                                           [&](const Diagnostic& d) { return d.code == code; }));
}

// Applies the fixes of one rule (unsafe included) until nothing changes.
std::string fix_rule(std::string text, std::string_view code, const Settings& settings = {}) {
  for (int round = 0; round < 5; ++round) {
    auto r = test::analyze_text("t.py", text, settings);
    std::vector<Diagnostic> mine;
    for (const auto& d : r.diagnostics)
      if (d.code == code) mine.push_back(d);
    size_t applied = 0;
    std::string next = test::apply_fixes(text, mine, applied);
    if (applied == 0 || next == text) break;
    text = next;
  }
  return text;
}

const char* kDefaults = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda")
loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=16, num_workers=2,
                    pin_memory=True, persistent_workers=True)
model = nn.Linear(8, 1).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for x, y in loader:
    x = x.to(device, non_blocking=True)
    y = y.to(device, non_blocking=True)
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
)";

}  // namespace

TEST_CASE("torch versions and requirement floors parse") {
  CHECK(parse_torch_version("2.1")->str() == "2.1");
  CHECK(parse_torch_version("1.13.1")->str() == "1.13");
  CHECK(parse_torch_version("2.0.0+cu118")->str() == "2.0");
  CHECK_FALSE(parse_torch_version("two"));
  CHECK_FALSE(parse_torch_version("2.x"));
  CHECK_FALSE(parse_torch_version(""));
  CHECK(effective_torch_version("").str() == kNewestTorch.str());
  CHECK(torch_requirement_floor("torch==1.13.1")->str() == "1.13");
  CHECK(torch_requirement_floor("torch>=2.0,<3")->str() == "2.0");
  CHECK(torch_requirement_floor("torch ~= 1.12.0 ; python_version > '3.8'")->str() == "1.12");
  CHECK(torch_requirement_floor("torch<2")->str() == "1.13");
  CHECK(torch_requirement_floor("torch<2.3")->str() == "2.2");
  CHECK(torch_requirement_floor("torch[opt-einsum]>=2.1")->str() == "2.1");
  CHECK_FALSE(torch_requirement_floor("torch"));
  CHECK_FALSE(torch_requirement_floor("torchvision==0.14"));
  CHECK_FALSE(torch_requirement_floor("torch-geometric>=2.0"));
  CHECK_FALSE(torch_requirement_floor("pytorch-lightning==1.9"));
}

TEST_CASE("target-torch-version from the configuration key or the project requirements") {
  auto s = parse_config_text("/p/stoker.toml", "target-torch-version = \"1.13\"\n", Settings{});
  REQUIRE(s);
  CHECK(s->target_torch_version == "1.13");
  CHECK_THROWS_AS(parse_config_text("/p/stoker.toml", "target-torch-version = \"latest\"\n", Settings{}), ConfigError);
  CHECK_THROWS_AS(parse_config_text("/p/stoker.toml", "target-torch-version = 2\n", Settings{}), ConfigError);

  std::string tmpl = (fs::temp_directory_path() / "stoker-gu-XXXXXX").string();
  fs::path root = ::mkdtemp(tmpl.data());
  fs::create_directories(root / "req" / "src");
  fs::create_directories(root / "pyp");
  fs::create_directories(root / "conf");
  fs::create_directories(root / "none");
  fs::create_directory(root / ".git");  // the walk stops here
  std::ofstream(root / "req" / "requirements.txt") << "numpy\n# torch==2.4\ntorch>=1.12.1,<2\n";
  std::ofstream(root / "pyp" / "pyproject.toml")
      << "[project]\nname = \"x\"\ndependencies = [\n  \"numpy\",\n  \"torch==1.13.1\",\n]\n";
  std::ofstream(root / "conf" / "pyproject.toml")
      << "[project]\ndependencies = [\"torch==1.13\"]\n[tool.stoker]\ntarget-torch-version = \"2.1\"\n";
  for (const char* d : {"req/src", "pyp", "conf", "none"}) std::ofstream(root / d / "train.py") << kDefaults;

  ConfigResolver resolver(std::nullopt, CliOverrides{});
  CHECK(resolver.settings_for((root / "req" / "src" / "train.py").string()).target_torch_version == "1.12");
  CHECK(resolver.settings_for((root / "pyp" / "train.py").string()).target_torch_version == "1.13");
  CHECK(resolver.settings_for((root / "conf" / "train.py").string()).target_torch_version == "2.1");
  CHECK(resolver.settings_for((root / "none" / "train.py").string()).target_torch_version.empty());
  CliOverrides cli;
  cli.target_torch_version = "2.3";
  ConfigResolver with_cli(std::nullopt, cli);
  CHECK(with_cli.settings_for((root / "pyp" / "train.py").string()).target_torch_version == "2.3");
  fs::remove_all(root);
}

TEST_CASE("GU009 and GU011 follow the target PyTorch's defaults") {
  Settings newest;
  auto now = test::analyze_text("t.py", kDefaults, newest);
  CHECK(count(now, "GU009") == 0);
  CHECK(count(now, "GU011") == 0);
  Settings old;
  old.target_torch_version = "1.13";
  auto before = test::analyze_text("t.py", kDefaults, old);
  CHECK(count(before, "GU009") == 1);
  CHECK(count(before, "GU011") == 1);
  Settings two;
  two.target_torch_version = "2.0";
  CHECK(count(test::analyze_text("t.py", kDefaults, two), "GU009") == 0);
  // The fixes under 1.13 are safe (they write 2.0's defaults) and silence both.
  for (const auto& d : before.diagnostics)
    if (d.code == "GU009" || d.code == "GU011") CHECK(d.fix->applicability == Applicability::Safe);
  std::string fixed = fix_rule(fix_rule(kDefaults, "GU009", old), "GU011", old);
  CHECK(fixed.find("optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=True)") != std::string::npos);
  CHECK(fixed.find("optimizer.zero_grad(set_to_none=True)") != std::string::npos);
  CHECK(python::count_syntax_errors(fixed) == 0);
  auto after = test::analyze_text("t.py", fixed, old);
  CHECK(count(after, "GU009") == 0);
  CHECK(count(after, "GU011") == 0);
}

TEST_CASE("GU002 and GU003 fixes insert the setting after the imports") {
  std::string conv = R"("""Docstring."""
from __future__ import annotations

import torch.nn as nn
from torch.utils.data import DataLoader

import torch

device = torch.device("cuda")
loader = DataLoader(list(range(8)), batch_size=4, num_workers=2, pin_memory=True, persistent_workers=True)
model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.Flatten(), nn.Linear(2048, 2048)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x in loader:
    x = x.to(device, non_blocking=True)
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
)";
  auto r = test::analyze_text("t.py", conv);
  CHECK(count(r, "GU002") == 1);
  CHECK(count(r, "GU003") == 1);
  std::string fixed = fix_rule(fix_rule(conv, "GU002"), "GU003");
  bool both_after_import = fixed.find("import torch\ntorch.backends.cudnn.benchmark = True\n") != std::string::npos ||
                           fixed.find("import torch\ntorch.set_float32_matmul_precision(\"high\")\n") != std::string::npos;
  CHECK(both_after_import);
  CHECK(fixed.find("torch.set_float32_matmul_precision(\"high\")") != std::string::npos);
  CHECK(python::count_syntax_errors(fixed) == 0);
  auto after = test::analyze_text("t.py", fixed);
  CHECK(count(after, "GU002") == 0);
  CHECK(count(after, "GU003") == 0);
  // The inserted lines come after the last leading import, before the first statement.
  CHECK(fixed.find("cudnn.benchmark") > fixed.find("import torch\n"));
  CHECK(fixed.find("cudnn.benchmark") < fixed.find("device = "));

  // `torch` itself not imported: the fix imports it.
  std::string no_torch = R"(from torch import nn, optim
from torch.utils.data import DataLoader

loader = DataLoader(list(range(8)), batch_size=4, num_workers=2, pin_memory=True, persistent_workers=True)
model = nn.Conv2d(3, 8, 3).cuda()
opt = optim.SGD(model.parameters(), lr=0.1)
for x in loader:
    x = x.cuda(non_blocking=True)
    model(x).sum().backward()
    opt.step()
)";
  REQUIRE(count(test::analyze_text("t.py", no_torch), "GU002") == 1);
  std::string fixed2 = fix_rule(no_torch, "GU002");
  CHECK(fixed2.find("import DataLoader\nimport torch\ntorch.backends.cudnn.benchmark = True\n\nloader") !=
        std::string::npos);
  CHECK(python::count_syntax_errors(fixed2) == 0);
  CHECK(count(test::analyze_text("t.py", fixed2), "GU002") == 0);
}

TEST_CASE("GU008 fix drops the bias and GU011 GU009 fixes replace an explicit False") {
  std::string text = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader

device = torch.device("cuda")
net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8)).to(device)
opt = torch.optim.SGD(net.parameters(), lr=0.1, foreach=False)
loader = DataLoader(list(range(8)), batch_size=4, num_workers=2, pin_memory=True, persistent_workers=True)
for x in loader:
    x = x.to(device, non_blocking=True)
    net(x).sum().backward()
    opt.step()
    opt.zero_grad(set_to_none=False)
)";
  auto r = test::analyze_text("t.py", text);
  CHECK(count(r, "GU008") == 1);
  CHECK(count(r, "GU009") == 1);
  CHECK(count(r, "GU011") == 1);
  for (const auto& d : r.diagnostics)
    if (d.code == "GU008" || d.code == "GU009" || d.code == "GU011") {
      INFO(d.code);
      CHECK(d.fix->applicability == Applicability::Unsafe);
      REQUIRE(d.impact);
      CHECK(d.impact->model == "compute-speedup");
      CHECK(d.impact->gain_low <= d.impact->gain_high);
      CHECK_FALSE(d.impact->assumptions.empty());
    }
  std::string fixed = fix_rule(fix_rule(fix_rule(text, "GU008"), "GU009"), "GU011");
  CHECK(fixed.find("nn.Conv2d(3, 8, 3, bias=False)") != std::string::npos);
  CHECK(fixed.find("foreach=True") != std::string::npos);
  CHECK(fixed.find("opt.zero_grad(set_to_none=True)") != std::string::npos);
  CHECK(python::count_syntax_errors(fixed) == 0);
  auto after = test::analyze_text("t.py", fixed);
  CHECK(count(after, "GU008") + count(after, "GU009") + count(after, "GU011") == 0);
  CHECK(count(after, "GU002") == 1);  // the conv net's autotuner finding stays (its own fix)
}

TEST_CASE("compute-speedup estimates use the figures of the sources per profile") {
  std::string text = R"(import torch
import torch.nn as nn
device = torch.device("cuda")
model = nn.Linear(1024, 1024).to(device)
opt = torch.optim.Adam(model.parameters(), foreach=False)
)";
  Settings a100;
  a100.gpu = "a100-sxm";
  auto r = test::analyze_text("t.py", text, a100);
  REQUIRE(count(r, "GU009") == 1);
  const Impact& i = *r.diagnostics[0].impact;
  // 5-25% of the step in the optimizer, 2-4.2x faster: 2.5..19 pp.
  CHECK(i.gain_low == Approx(2.5));
  CHECK(i.gain_high == Approx(100 * 0.25 * (1 - 1 / 4.2)));
  Settings generic;
  auto g = test::analyze_text("t.py", text, generic);
  CHECK(g.diagnostics[0].impact->gain_low == Approx(0));  // an unknown GPU may gain nothing
}
