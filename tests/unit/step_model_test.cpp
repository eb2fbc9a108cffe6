// Facts everywhere and the step model of each hot loop, through the real Python front end:
// a value the analysis resolves changes the estimate and is stated as "resolved"; findings of
// one loop compose (never past its idle share, one loader not counted twice); busy now does not
// move with --select; the measured-time hook narrows the loop to one number.
#include <catch2/catch.hpp>

#include <string>

#include "core/analyzer.h"
#include "core/impact.h"
#include "core/settings.h"
#include "cli_support.h"

using namespace stoker;
using namespace stoker::testing;

namespace {

AnalysisResult run(const std::string& text, Settings s = {}) { return analyze(SourceFile("train.py", text), s); }

const Diagnostic* find(const AnalysisResult& r, std::string_view code, size_t nth = 0) {
  for (const auto& d : r.diagnostics)
    if (d.code == code && nth-- == 0) return &d;
  return nullptr;
}
const Diagnostic& need(const AnalysisResult& r, std::string_view code, size_t nth = 0) {
  const Diagnostic* d = find(r, code, nth);
  INFO("no " << code << " #" << nth);
  REQUIRE(d);
  REQUIRE(d->impact);
  return *d;
}
bool states(const Diagnostic& d, std::string_view line) {
  for (const auto& a : d.impact->assumptions)
    if (a.find(line) != std::string::npos) return true;
  return false;
}
std::string replace(std::string s, std::string_view from, std::string_view to) {
  auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// A starved script: no workers, no pinning, blocking copies of an image batch and its labels.
const std::string kStarved = R"(import torch
from torch.utils.data import DataLoader, TensorDataset

images = torch.randn(2048, 3, 224, 224)
labels = torch.randint(0, 10, (2048,))
ds = TensorDataset(images, labels)
loader = DataLoader(ds, batch_size=128)
model = torch.nn.Linear(10, 10).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    for x, y in loader:
        x = x.cuda()
        y = y.cuda()
        loss = model(x).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
)";

}  // namespace

TEST_CASE("serial-loader: the loader's resolved batch size reaches DL001 and moves its estimate") {
  auto r128 = run(kStarved);
  const auto& d128 = need(r128, "DL001");
  CHECK(states(d128, "batch_size=128 (resolved)"));
  CHECK(states(d128, "workers now=0 (resolved)"));
  auto r8 = run(replace(kStarved, "batch_size=128", "batch_size=8"));
  const auto& d8 = need(r8, "DL001");
  CHECK(states(d8, "batch_size=8 (resolved)"));
  CHECK(d8.impact->gain_high < d128.impact->gain_high);
  // Unresolvable: the default, and said so.
  auto ru = run(replace(kStarved, "batch_size=128", "batch_size=int(input())"));
  CHECK(states(need(ru, "DL001"), "batch_size=32 (default)"));
}

TEST_CASE("blocking-copy: copy sizes come from resolvable shapes and dtypes (a label is not an image batch)") {
  auto r = run(kStarved);
  const auto& x = need(r, "TX001", 0);
  const auto& y = need(r, "TX001", 1);
  // 128 images of 3x224x224 float32, 128 int64 labels.
  CHECK(states(x, "copy_bytes=" + std::to_string(128LL * 3 * 224 * 224 * 4) + " (resolved)"));
  CHECK(states(y, "copy_bytes=1024 (resolved)"));
  CHECK(states(x, "batch_size=128 (resolved)"));
  // Alone, the label copy costs far less than the image copy.
  const HardwareProfile* hw = find_profile("generic");
  auto alone = [&](const Diagnostic& d) { return estimate_impact("blocking-copy", *hw, make_workload(*hw, d.facts, {})); };
  CHECK(alone(y)->gain_high < alone(x)->gain_high / 100);
  // A half-precision image tensor halves the image copy.
  auto half = run(replace(kStarved, "torch.randn(2048, 3, 224, 224)", "torch.randn(2048, 3, 224, 224, dtype=torch.float16)"));
  CHECK(states(need(half, "TX001", 0), "copy_bytes=" + std::to_string(128LL * 3 * 224 * 224 * 2) + " (resolved)"));
}

TEST_CASE("pageable-copy: DL002 costs the resolved sample size times the resolved batch") {
  auto r = run(kStarved);
  const auto& d = need(r, "DL002");
  CHECK(states(d, "resolved sample size x batch"));
  auto small = run(replace(kStarved, "torch.randn(2048, 3, 224, 224)", "torch.randn(2048, 3, 32, 32)"));
  const HardwareProfile* hw = find_profile("generic");
  auto big_alone = estimate_impact("pageable-copy", *hw, make_workload(*hw, d.facts, {}));
  auto small_alone = estimate_impact("pageable-copy", *hw, make_workload(*hw, need(small, "DL002").facts, {}));
  CHECK(small_alone->gain_high < big_alone->gain_high);
}

TEST_CASE("respawn: resolved workers and steps per epoch (dataset length / batch) reach DL003") {
  std::string src = replace(kStarved, "batch_size=128)", "batch_size=128, num_workers=4)");
  auto r = run(src);
  const auto& d = need(r, "DL003");
  CHECK(states(d, "workers now=4 (resolved)"));
  CHECK(states(d, "steps_per_epoch=16 (resolved"));  // ceil(2048 / 128)
  auto longer = run(replace(replace(src, "torch.randn(2048,", "torch.randn(204800,"), "(2048,)", "(204800,)"));
  const auto& dl = need(longer, "DL003");
  CHECK(states(dl, "steps_per_epoch=1600 (resolved"));
  CHECK(dl.impact->gain_high < d.impact->gain_high);
  auto more = run(replace(src, "num_workers=4", "num_workers=16"));
  CHECK(need(more, "DL003").impact->gain_high > d.impact->gain_high);
}

TEST_CASE("sync-bubble: a resolved amortization period lowers SY001's estimate") {
  std::string every = replace(kStarved, "        opt.step()\n", "        opt.step()\n        print(loss.item())\n");
  std::string amort = replace(every, "        print(loss.item())\n",
                              "        if step % 10 == 0:\n            print(loss.item())\n");
  amort = replace(amort, "for x, y in loader:", "for step, (x, y) in enumerate(loader):");
  auto r1 = run(every);
  auto r10 = run(amort);
  const auto& s1 = need(r1, "SY001");
  const auto& s10 = need(r10, "SY001");
  CHECK(states(s10, "runs every 10 steps (resolved)"));
  CHECK(s10.impact->gain_high < s1.impact->gain_high);
}

TEST_CASE("small-batch: BS001 moves with the resolved batch size") {
  auto r4 = run(replace(kStarved, "batch_size=128", "batch_size=4"));
  auto r8b = run(replace(kStarved, "batch_size=128", "batch_size=8"));
  const auto& b4 = need(r4, "BS001");
  const auto& b16 = need(r8b, "BS001");
  CHECK(states(b4, "batch_size=4 (resolved)"));
  CHECK(b16.impact->gain_high < b4.impact->gain_high);
}

TEST_CASE("alloc-in-loop: resolved allocation counts and periods move the estimate (C++ facts)") {
  const HardwareProfile* hw = find_profile("a100-sxm");
  auto est = [&](std::vector<std::pair<std::string, std::string>> facts) {
    return estimate_impact("alloc-in-loop", *hw, make_workload(*hw, facts, {}));
  };
  auto one = est({}), four = est({{"allocs_per_step", "4"}}), amort = est({{"amortized_every", "8"}});
  CHECK(four->gain_high > one->gain_high);
  CHECK(amort->gain_high < one->gain_high);  // the C++ front end's key is read too
  bool stated = false;
  for (const auto& a : four->assumptions) stated |= a == "allocs_per_step=4 (resolved)";
  CHECK(stated);
}

TEST_CASE("one step model per hot loop: findings compose, never past the idle share") {
  auto r = run(kStarved);
  REQUIRE(r.loops.size() == 1);
  const LoopStep& l = r.loops[0];
  CHECK(l.loop_offset == static_cast<int64_t>(kStarved.find("for x, y in loader")));
  CHECK(l.members.size() == r.diagnostics.size());
  CHECK(l.busy_now_lo <= l.busy_now_hi);
  CHECK(l.busy_after_lo >= l.busy_now_lo);
  CHECK(l.busy_after_hi <= 1);
  CHECK(l.now.step_ms() > l.after.step_ms());
  CHECK(l.now.host_ms[static_cast<int>(StepTerm::LoaderWait)] > 0);
  CHECK(l.now.host_ms[static_cast<int>(StepTerm::Copies)] > 0);
  CHECK_FALSE(l.dominant.empty());
  // The gains of the loop's findings add up to at most its idle share.
  double sum_lo = 0, sum_hi = 0;
  for (const auto& d : r.diagnostics) {
    sum_lo += d.impact->gain_low;
    sum_hi += d.impact->gain_high;
    CHECK(states(d, "step model: composed with"));
  }
  CHECK(sum_lo <= 100 * (1 - l.busy_now_lo) + 1e-6);
  CHECK(sum_lo <= 100 * (l.busy_after_hi - l.busy_now_lo) + 1e-6);
  ProjectBusy p = file_busy(r);
  CHECK(p.any());
  CHECK(p.now < p.after);
  CHECK(p.after <= 1);
}

TEST_CASE("two findings on one loader are not counted twice") {
  // DL001 and DL002 on the same loader, and the TX001 copies of that loader's batch: the copy
  // group counts the pageable copy once (DL002 vs the TX001s: the larger).
  auto all = run(kStarved);
  Settings only_dl;
  only_dl.rules.select = {"DL001"};
  // Busy now counts every finding whatever is selected.
  auto selected = run(kStarved, only_dl);
  REQUIRE(selected.loops.size() == 1);
  CHECK(selected.loops[0].busy_now_lo == Approx(all.loops[0].busy_now_lo));
  CHECK(selected.loops[0].busy_now_hi == Approx(all.loops[0].busy_now_hi));
  CHECK(selected.loops[0].busy_after_hi < all.loops[0].busy_after_hi);
  // A loader built inside the loop (DL004) and without workers (DL001): one loader wait.
  LoopStep one, two;
  StepMember dl001{"DL001", "serial-loader", 10, true, -1, {{"loader", "10"}, {"num_workers", "0"}, {"batch_size", "64"}}};
  StepMember dl004{"DL004", "serial-loader", 10, true, -1, {{"loader", "10"}, {"num_workers", "0"}, {"batch_size", "64"}}};
  one.members = {dl001};
  two.members = {dl001, dl004};
  const HardwareProfile* hw = find_profile("h100-sxm");
  compose_loop(one, *hw, {});
  auto gains = compose_loop(two, *hw, {});
  CHECK(two.busy_now_lo == Approx(one.busy_now_lo));
  CHECK(two.now.step_ms() == Approx(one.now.step_ms()));
  // Fixing DL001 alone leaves DL004's wait: the two pay together and share the loop's gain,
  // half each (they remove the same wait), adding up to the loop's gain, not twice it.
  CHECK(gains[0].first == Approx(gains[1].first));
  CHECK(gains[0].second + gains[1].second <= 100 * (two.busy_after_hi - two.busy_now_lo) + 1e-6);
  auto single = compose_loop(one, *hw, {});
  CHECK(gains[0].second + gains[1].second == Approx(single[0].second));
  // Two syncs at different statements do add up.
  LoopStep syncs;
  syncs.members = {{"SY001", "sync-bubble", 100, true, -1, {}}, {"SY004", "sync-bubble", 200, true, -1, {}}};
  LoopStep sync1;
  sync1.members = {syncs.members[0]};
  compose_loop(syncs, *hw, {});
  compose_loop(sync1, *hw, {});
  CHECK(syncs.now.step_ms() > sync1.now.step_ms());
}

TEST_CASE("measured times (the trace hook) replace the assumptions of a loop") {
  auto r = run(kStarved);
  REQUIRE(r.loops.size() == 1);
  MeasuredStep m;
  m.gpu_ms = 40;
  m.load_ms = 120;
  apply_measurement(r, 0, m, Settings{});
  const LoopStep& l = r.loops[0];
  CHECK(l.measured);
  CHECK(l.now.gpu_ms == Approx(40));
  CHECK(l.now.host_ms[static_cast<int>(StepTerm::LoaderWait)] == Approx(120));  // serial: the whole load
  CHECK(states(need(r, "DL001"), "measured: GPU 40 ms load 120 ms"));
  // Only a step time: T_gpu is solved so that the modelled step is the measured one.
  auto r2 = run(kStarved);
  MeasuredStep step;
  step.step_ms = 500;
  apply_measurement(r2, 0, step, Settings{});
  CHECK(r2.loops[0].now.step_ms() == Approx(500).epsilon(0.01));
}

TEST_CASE("a full measurement fixes the step: measured waits once, modelled members within the unexplained idle") {
  const HardwareProfile* hw = find_profile("generic");
  // Two syncs at different statements joined to the same 10 ms of idle (a trace without stacks
  // joins by pattern): together they remove those 10 ms once, not twice.
  LoopStep l;
  l.members = {{"SY001", "sync-bubble", 100, true, -1, {}}, {"SY004", "sync-bubble", 200, true, -1, {}}};
  MeasuredStep m;
  m.step_ms = 50;
  m.gpu_ms = 30;
  m.waits = {{10, {0, 1}, "aten::item"}};
  auto gains = compose_loop(l, *hw, {}, &m);
  CHECK(l.measured);
  CHECK(l.now.step_ms() == Approx(50));
  CHECK(l.busy_now_lo == Approx(0.6));
  CHECK(l.busy_now_hi == Approx(0.6));
  CHECK(l.busy_after_lo == Approx(30.0 / 40));
  CHECK(l.busy_after_hi == Approx(30.0 / 40));
  CHECK(l.now.host_ms[static_cast<int>(StepTerm::Syncs)] == Approx(10));
  CHECK(l.now.host_ms[static_cast<int>(StepTerm::Overhead)] == Approx(10));  // idle no finding explains
  CHECK(gains[0].first + gains[1].first == Approx(100 * (0.75 - 0.6)));
  // An unjoined member is modelled only within the idle the trace leaves unexplained, scaled
  // down to fit: here 1 - 0.1 - 0.5 = 0.4 ms.
  LoopStep u;
  u.members = {{"SY001", "sync-bubble", 100, true, -1, {}}, {"CU004", "alloc-in-loop", 300, true, -1, {}}};
  MeasuredStep tiny;
  tiny.step_ms = 1;
  tiny.gpu_ms = 0.1;
  tiny.waits = {{0.5, {0}, "aten::item"}};
  compose_loop(u, *hw, {}, &tiny);
  CHECK(u.now.step_ms() == Approx(1));
  CHECK(u.now.host_ms[static_cast<int>(StepTerm::Allocations)] <= 0.4 + 1e-9);
  CHECK(u.busy_now_lo == Approx(0.1));
  // After both fixes: SY001's 0.5 ms go, and the allocations' modelled 0.05..1 ms (serial with
  // the GPU: that many ms), capped at the 0.4 ms of room; what the cap leaves stays.
  CHECK(u.busy_after_lo == Approx(0.1 / (0.1 + 0.4 - 0.05)));
  CHECK(u.busy_after_hi == Approx(1.0));
}

TEST_CASE("configured step and load times narrow the loop to one number") {
  Settings s;
  s.workload.step_time_ms = 50;
  s.workload.load_time_ms = 100;
  s.workload.batch_bytes = 1e6;
  auto r = run(kStarved, s);
  REQUIRE(r.loops.size() == 1);
  // Left wide: the dispatch, spawn and steps-per-epoch intervals no member reads here.
  CHECK(r.loops[0].busy_now_hi - r.loops[0].busy_now_lo < 0.01);
  auto d = run(kStarved);
  CHECK(d.loops[0].busy_now_hi - d.loops[0].busy_now_lo > r.loops[0].busy_now_hi - r.loops[0].busy_now_lo);
}

TEST_CASE("text output: loop lines, the project's busy now and after, top findings, and --statistics never sums gains") {
  TempSource src("train.py", kStarved);
  auto r = run_in(src.dir.path, stoker_command("check --no-cache --statistics train.py"));
  CHECK(r.rc == 1);
  INFO(r.out);
  CHECK_THAT(r.out, Catch::Contains("hot loop train.py:11: est. GPU busy "));
  CHECK_THAT(r.out, Catch::Contains("Project: est. GPU busy "));
  CHECK_THAT(r.out, Catch::Contains("after all fixes"));
  CHECK_THAT(r.out, Catch::Contains("Top findings by gain:\n  +"));
  // The rule lines of --statistics carry counts, not summed gains.
  std::istringstream lines(r.out);
  std::string line;
  size_t rule_lines = 0;
  while (std::getline(lines, line)) {
    if (line.find("\tDL00") == std::string::npos && line.find("\tTX00") == std::string::npos) continue;
    ++rule_lines;
    CHECK(line.find(" pp") == std::string::npos);
  }
  CHECK(rule_lines >= 3);
  // The project line is the last loop's numbers for one loop, and never past 100%.
  auto at = r.out.find("Project: est. GPU busy ");
  REQUIRE(at != std::string::npos);
  int now = std::stoi(r.out.substr(at + 23));
  auto after_at = r.out.find("), ", at);
  int after = std::stoi(r.out.substr(after_at + 3));
  CHECK(now < after);
  CHECK(after <= 100);
}
