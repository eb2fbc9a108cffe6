// GU007 (`ddp-accumulation-without-no-sync` in the catalog's GU table) is the same pattern as
// DD001: a redirected code, as ruff redirects rule codes. Everything goes through the real
// binary: selection on the command line and in the configuration, per-file-ignores,
// suppression comments, `stoker rule`, `stoker linter`, SARIF.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "core/rules.h"

using namespace stoker;
using namespace stoker::testing;

namespace {

const char* kAccumulation = R"(import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset

dist.init_process_group("nccl")
rank = dist.get_rank()
torch.cuda.set_device(rank)
model = DDP(nn.Linear(32, 16).to("cuda"), device_ids=[rank])
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(512, 32), torch.randint(0, 16, (512,))), batch_size=64,
                    num_workers=4, pin_memory=True, persistent_workers=True)
for i, (x, y) in enumerate(loader):
    x, y = x.to("cuda", non_blocking=True), y.to("cuda", non_blocking=True)
    loss = F.cross_entropy(model(x), y) / 4
    loss.backward()
    if (i + 1) % 4 == 0:
        optimizer.step()
        optimizer.zero_grad()
)";

constexpr int kBackwardRow = 18;

// The codes of the JSON findings of `stoker check <args> train.py` in `dir`.
std::vector<std::string> codes(const TempDir& dir, const std::string& args, std::string* err = nullptr) {
  auto r = run_in(dir.path, stoker_command("check --no-cache --output-format json " + args + " train.py"));
  INFO(r.out << r.err);
  REQUIRE((r.rc == 0 || r.rc == 1));
  if (err) *err = r.err;
  std::vector<std::string> out;
  for (const auto& f : nlohmann::json::parse(r.out)) out.push_back(f["code"].get<std::string>());
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& code) {
  return std::find(v.begin(), v.end(), code) != v.end();
}

}  // namespace

TEST_CASE("GU007 selects and ignores DD001, which is reported once under its own code") {
  TempDir d;
  write_text(d / "train.py", kAccumulation);
  auto all = codes(d, "");
  CHECK(std::count(all.begin(), all.end(), "DD001") == 1);
  CHECK_FALSE(has(all, "GU007"));

  std::string err;
  auto sel = codes(d, "--select GU007", &err);
  CHECK(sel == std::vector<std::string>{"DD001"});
  CHECK_THAT(err, Catch::Contains("`GU007` has been remapped to `DD001`"));
  CHECK(codes(d, "--ignore GU007").size() + 1 == all.size());
  CHECK_FALSE(has(codes(d, "--ignore GU007"), "DD001"));
  // Through the family: GU covers GU007 and so DD001; the code's own family ranks higher on a
  // tie, so `--select DD --ignore GU` keeps it and `--select GU --ignore DD` drops it.
  CHECK(has(codes(d, "--select GU"), "DD001"));
  CHECK(has(codes(d, "--select DD --ignore GU"), "DD001"));
  CHECK_FALSE(has(codes(d, "--select GU --ignore DD"), "DD001"));
  // The longer selector wins, through the redirected code too.
  CHECK_FALSE(has(codes(d, "--select DD --ignore GU00"), "DD001"));
  CHECK_FALSE(has(codes(d, "--select DD --ignore GU007"), "DD001"));
  CHECK(has(codes(d, "--select DD00 --ignore GU"), "DD001"));
  CHECK(has(codes(d, "--ignore DD --extend-select GU007"), "DD001"));
  // Unknown codes near it are still refused.
  auto bad = run_in(d.path, stoker_command("check --select GU014 train.py"));
  CHECK(bad.rc == 2);
  CHECK_THAT(bad.err, Catch::Contains("unknown rule selector `GU014`"));
}

TEST_CASE("GU007 in the configuration: select, ignore and per-file-ignores") {
  TempDir d;
  write_text(d / "train.py", kAccumulation);
  write_text(d / "stoker.toml", "select = [\"GU007\"]\n");
  CHECK(codes(d, "") == std::vector<std::string>{"DD001"});
  write_text(d / "stoker.toml", "ignore = [\"GU007\"]\n");
  CHECK_FALSE(has(codes(d, ""), "DD001"));
  write_text(d / "stoker.toml", "[per-file-ignores]\n\"train.py\" = [\"GU007\"]\n");
  CHECK_FALSE(has(codes(d, ""), "DD001"));
  CHECK(has(codes(d, "--select DD"), "DD001") == false);  // per-file-ignores apply after select
  write_text(d / "stoker.toml", "[per-file-ignores]\n\"other.py\" = [\"GU007\"]\n");
  CHECK(has(codes(d, ""), "DD001"));
}

TEST_CASE("# noqa: GU007 and # stoker: ignore[GU007] suppress DD001, and count as used") {
  TempDir d;
  std::string text = kAccumulation;
  auto at = text.find("    loss.backward()\n");
  REQUIRE(at != std::string::npos);
  for (const char* comment : {"  # noqa: GU007", "  # stoker: ignore[GU007] -- measured, single node"}) {
    std::string t = text;
    t.insert(at + std::string("    loss.backward()").size(), comment);
    write_text(d / "train.py", t);
    auto c = codes(d, "--report-unused-ignores");
    INFO(comment);
    CHECK_FALSE(has(c, "DD001"));
    CHECK_FALSE(has(c, "ST001"));  // the suppression is used
  }
  // On another line it suppresses nothing, and is reported as unused.
  std::string t = text;
  t.insert(text.find("    if (i + 1)"), "    # noqa: GU007\n\n");
  write_text(d / "train.py", t);
  auto c = codes(d, "--report-unused-ignores");
  CHECK(has(c, "DD001"));
  CHECK(has(c, "ST001"));
}

TEST_CASE("stoker rule GU007 shows DD001's document, linter and SARIF name the redirect") {
  auto r = run_stoker("rule GU007");
  CHECK(r.rc == 0);
  CHECK(r.out.rfind("GU007 redirects to DD001", 0) == 0);
  CHECK_THAT(r.out, Catch::Contains("# accumulation-without-no-sync (DD001)") && Catch::Contains("## What it does"));
  CHECK(run_stoker("rule DD001").out.find("redirects") == std::string::npos);

  auto linter = nlohmann::json::parse(run_stoker("linter --output-format json").out);
  bool listed = false;
  for (const auto& l : linter)
    if (l["prefix"] == "GU") listed = l.contains("redirects") && l["redirects"]["GU007"] == "DD001";
  CHECK(listed);
  CHECK_THAT(run_stoker("linter").out, Catch::Contains("GU007 redirects to DD001"));

  TempDir d;
  write_text(d / "train.py", kAccumulation);
  auto sarif = run_in(d.path, stoker_command("check --no-cache --output-format sarif train.py"));
  auto j = nlohmann::json::parse(sarif.out);
  bool deprecated = false;
  for (const auto& rule : j["runs"][0]["tool"]["driver"]["rules"])
    if (rule["id"] == "DD001") deprecated = rule.value("deprecatedIds", nlohmann::json::array()) == nlohmann::json{"GU007"};
  CHECK(deprecated);
  bool located = false;
  for (const auto& res : j["runs"][0]["results"])
    if (res["ruleId"] == "DD001")
      located = res["locations"][0]["physicalLocation"]["region"]["startLine"] == kBackwardRow;
  CHECK(located);
}

TEST_CASE("selector ranks: a redirected code ranks just below the code itself") {
  CHECK(selector_rank("DD001", "DD001") > selector_rank("GU007", "DD001"));
  CHECK(selector_rank("GU007", "DD001") > selector_rank("DD", "DD001"));
  CHECK(selector_rank("DD", "DD001") > selector_rank("GU", "DD001"));
  CHECK(selector_rank("GU", "DD001") > selector_rank("ALL", "DD001"));
  CHECK(selector_rank("GU", "GU001") > 0);
  CHECK(selector_rank("GU007", "GU001") == 0);
  CHECK(selector_rank("DL", "DD001") == 0);
  CHECK(RuleRegistry::builtin().is_valid_selector("GU007"));
  CHECK(RuleRegistry::builtin().redirect_target("GU007")->code == "DD001");
  CHECK(RuleRegistry::builtin().find("GU007") == nullptr);
}
