// GU rules: target-torch-version (parsing, configuration, the project's declared requirement,
// the version-dependent defaults of GU009/GU011), and the GU fixes applied and re-parsed.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include <map>
#include <nlohmann/json.hpp>

#include "cli_support.h"
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
  // Before 1.13 `foreach` is not an argument of every optimizer (none before 1.12): the
  // default is not reported, `foreach=True` would not run there; GU011 still is.
  Settings older;
  older.target_torch_version = "1.8";
  auto eight = test::analyze_text("t.py", kDefaults, older);
  CHECK(count(eight, "GU009") == 0);
  CHECK(count(eight, "GU011") == 1);
  std::string off = kDefaults;
  off.replace(off.find("lr=1e-3)"), 8, "lr=1e-3, foreach=False)");
  CHECK(count(test::analyze_text("t.py", off, older), "GU009") == 1);  // written: the release has it
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

namespace {
// A CUDA training loop whose model comes from another module (kind not resolved), run as a
// program: GU001 and GU002 at info.
const char* kUnknownModel = R"(import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from models import build_model

device = torch.device("cuda")
loader = DataLoader(TensorDataset(torch.randn(64, 3, 32, 32), torch.randint(0, 10, (64,))), batch_size=16,
                    num_workers=2, pin_memory=True, persistent_workers=True)
model = build_model().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for x, y in loader:
    x = x.to(device, non_blocking=True)
    y = y.to(device, non_blocking=True)
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
)";
}  // namespace

TEST_CASE("GU001/GU002 with the model's kind unresolved: info, estimate from no gain, said in the output") {
  stoker::testing::TempDir d;
  stoker::testing::write_text(d / "train.py", kUnknownModel);
  auto r = stoker::testing::run_in(d.path, stoker::testing::stoker_command("check --no-cache --gpu a100-sxm --output-format json train.py"));
  auto j = nlohmann::json::parse(r.out);
  std::map<std::string, nlohmann::json> by_code;
  for (const auto& f : j) by_code[f["code"].get<std::string>()] = f;
  REQUIRE(by_code.count("GU001"));
  REQUIRE(by_code.count("GU002"));
  CHECK_FALSE(by_code.count("GU003"));  // needs fp32 matmul-heavy work, not resolved here
  for (const char* code : {"GU001", "GU002"}) {
    const auto& f = by_code[code];
    INFO(f.dump(1));
    CHECK(f["severity"] == "info");
    CHECK_THAT(f["message"].get<std::string>(), Catch::Contains("kind is not resolved"));
    CHECK(f["location"]["row"] == 17);
    CHECK(f["impact"]["gain_pp"][0].get<double>() == Approx(0));
    CHECK(f["impact"]["gain_pp"][1].get<double>() > 10);
    bool said = false;
    for (const auto& a : f["impact"]["assumptions"]) said |= a.get<std::string>().find("model kind not resolved") != std::string::npos;
    CHECK(said);
  }
  // The same loop with a resolved conv model: warnings, the low end above zero on a named GPU.
  std::string conv = kUnknownModel;
  conv.replace(conv.find("build_model()"), 13, "torch.nn.Conv2d(3, 8, 3)");
  stoker::testing::write_text(d / "train.py", conv);
  auto rc = nlohmann::json::parse(stoker::testing::run_in(d.path, stoker::testing::stoker_command("check --no-cache --gpu a100-sxm --output-format json train.py")).out);
  size_t warnings = 0;
  for (const auto& f : rc)
    if (f["code"] == "GU001" || f["code"] == "GU002") {
      CHECK(f["severity"] == "warning");
      CHECK(f["impact"]["gain_pp"][0].get<double>() > 0);
      ++warnings;
    }
  CHECK(warnings == 2);
}

TEST_CASE("compute-speedup gains read as step time, idle-time gains as GPU busy, in every output") {
  stoker::testing::TempDir d;
  // GU001 (compute speedup), TX001 and DL001 (idle time) in one program.
  std::string text = kUnknownModel;
  text.replace(text.find("x = x.to(device, non_blocking=True)"), 35, "x = x.to(device)");
  // DL001 (idle time: a loader without workers) with a gain of several points.
  text.replace(text.find("num_workers=2, pin_memory=True, persistent_workers=True"), 55, "pin_memory=True");
  stoker::testing::write_text(d / "train.py", text);
  auto txt = stoker::testing::run_in(d.path, stoker::testing::stoker_command("check --no-cache --gpu a100-sxm --no-color train.py")).out;
  INFO(txt);
  // The finding's impact line: step time, never "pp GPU busy".
  auto gu = txt.find("GU001");
  REQUIRE(gu != std::string::npos);
  auto impact = txt.find("= impact:", gu);
  REQUIRE(impact != std::string::npos);
  std::string line = txt.substr(impact, txt.find('\n', impact) - impact);
  CHECK_THAT(line, Catch::Matches(R"(= impact: est\. step time -0\.\.\d+% \(faster GPU work; the GPU is busy either way\) on a100-sxm)"));
  auto tx = txt.find("TX001");
  REQUIRE(tx != std::string::npos);
  auto tx_impact = txt.find("= impact:", tx);
  CHECK_THAT(txt.substr(tx_impact, txt.find('\n', tx_impact) - tx_impact), Catch::Contains("pp GPU busy"));
  // The ranking lists both in their own units.
  CHECK_THAT(txt, Catch::Matches(R"([\s\S]*Top findings by gain:[\s\S]*  step -0\.\.\d+%  GU00[12] [\s\S]*)"));
  CHECK_THAT(txt, Catch::Matches(R"([\s\S]*Top findings by gain:[\s\S]*  \+\d+\.\.\d+ pp  DL001 [\s\S]*)"));

  auto json = nlohmann::json::parse(stoker::testing::run_in(d.path, stoker::testing::stoker_command("check --no-cache --gpu a100-sxm --output-format json train.py")).out);
  size_t seen = 0;
  for (const auto& f : json) {
    if (f["impact"].is_null()) continue;
    bool step = f["code"].get<std::string>().rfind("GU", 0) == 0;
    CHECK(f["impact"]["gain_unit"] == (step ? "step-time-pct" : "gpu-busy-pp"));
    CHECK_THAT(f["impact"]["gain_text"].get<std::string>(), Catch::Contains(step ? "step time" : "pp GPU busy"));
    ++seen;
  }
  CHECK(seen >= 3);

  auto sarif = nlohmann::json::parse(stoker::testing::run_in(d.path, stoker::testing::stoker_command("check --no-cache --gpu a100-sxm --output-format sarif train.py")).out);
  bool sarif_step = false;
  for (const auto& res : sarif["runs"][0]["results"])
    if (res["ruleId"] == "GU001")
      sarif_step = res["properties"]["impact"]["gain_unit"] == "step-time-pct" &&
                   res["properties"]["impact"]["gain_text"].get<std::string>().rfind("step time -", 0) == 0;
  CHECK(sarif_step);

  auto html = stoker::testing::run_in(d.path, stoker::testing::stoker_command("check --no-cache --gpu a100-sxm --output-format html train.py")).out;
  CHECK_THAT(html, Catch::Matches(R"([\s\S]*<td class="gain">step -0\.\.\d+%</td>[\s\S]*)"));
  CHECK_THAT(html, Catch::Matches(R"([\s\S]*<td class="gain">\+\d+\.\.\d+ pp</td>[\s\S]*)"));
}
