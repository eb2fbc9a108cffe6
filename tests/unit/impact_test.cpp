// Properties of the impact model: bounds, monotonicity, zero residual after a fix, the
// direction profiles move results in, and attachment to every diagnostic of a modelled rule.
#include <catch2/catch.hpp>

#include "core/analyzer.h"
#include "core/impact.h"
#include "core/rules.h"
#include "core/settings.h"

using namespace stoker;

namespace {

using Facts = std::vector<std::pair<std::string, std::string>>;

IdleRange eval(const std::string& model, const HardwareProfile& hw, const Facts& facts, const Settings& s = {}) {
  auto r = evaluate_model(model, hw, make_workload(hw, facts, s));
  REQUIRE(r);
  return *r;
}
const HardwareProfile& profile(const char* name) {
  const HardwareProfile* p = find_profile(name);
  REQUIRE(p);
  return *p;
}

}  // namespace

TEST_CASE("every profile named in the design exists with plausible numbers") {
  for (const char* name : {"h100-sxm", "h100-pcie", "h200", "b200", "a100-sxm", "a100-pcie", "l4", "rtx-4090", "generic"}) {
    const auto& p = profile(name);
    CHECK(p.pcie_gen >= 3);
    CHECK(p.h2d_pageable_gbps < p.h2d_pinned_gbps);
    CHECK(p.h2d_pinned_gbps < 16.0 * (1 << (p.pcie_gen - 3)) + 0.01);  // below the x16 link rate
    CHECK(p.peak_tflops > 0);
  }
  CHECK(find_profile("tpu-v5") == nullptr);
}

TEST_CASE("gains stay within [0, 100] pp for every model, profile and odd input") {
  std::vector<Facts> inputs = {{},
                               {{"batch_size", "1"}},
                               {{"batch_size", "100000"}, {"num_workers", "0"}},
                               {{"amortize_every", "1000000"}},
                               {{"copy_bytes", "1e12"}, {"copies_per_step", "50"}},
                               {{"batch_size", "nonsense"}, {"num_workers", "-3"}},
                               {{"kind", "memset"}, {"allocs_per_step", "100"}, {"steps_per_epoch", "1"}}};
  for (const auto& hw : hardware_profiles())
    for (const auto& model : impact_model_names())
      for (const auto& facts : inputs) {
        auto r = eval(model, hw, facts);
        INFO(model << " on " << hw.name);
        CHECK(r.gain_lo >= 0);
        CHECK(r.gain_hi <= 100);
        CHECK(r.gain_lo <= r.gain_hi);
        CHECK(r.now_lo >= 0);
        CHECK(r.now_hi <= 1);
        CHECK(r.after_hi <= r.now_hi);
      }
  CHECK_FALSE(evaluate_model("no-such-model", profile("generic"), Workload{}));
}

TEST_CASE("more workers never lower the gain of fixing a serial loader (DL001)") {
  double prev_lo = -1, prev_hi = -1;
  for (int workers : {1, 2, 3, 4, 6, 8, 12, 16, 32, 64}) {
    Settings s;
    s.workload.workers = workers;
    auto r = eval("serial-loader", profile("a100-sxm"), {{"batch_size", "64"}, {"num_workers", "0"}}, s);
    CHECK(r.gain_lo >= prev_lo);
    CHECK(r.gain_hi >= prev_hi);
    prev_lo = r.gain_lo, prev_hi = r.gain_hi;
  }
  // The plain function too, over a grid.
  for (double load : {1.0, 10.0, 100.0, 1000.0})
    for (double gpu : {1.0, 20.0, 200.0})
      for (double w = 1; w < 40; ++w)
        CHECK(serial_loader(load, gpu, 0, w + 1).after <= serial_loader(load, gpu, 0, w).after);
}

TEST_CASE("a larger amortization interval lowers the gain of removing a sync (SY001)") {
  const auto& hw = profile("h100-sxm");
  auto every = [&](int n) { return eval("sync-bubble", hw, {{"amortize_every", std::to_string(n)}}); };
  auto r1 = every(1), r10 = every(10), r100 = every(100);
  CHECK(r10.gain_hi < r1.gain_hi);
  CHECK(r100.gain_hi < r10.gain_hi);
  CHECK(r100.gain_lo <= r10.gain_lo);
  CHECK(sync_bubble(0.01, 1, 20, 50).now < sync_bubble(0.01, 1, 20, 5).now);
}

TEST_CASE("a fixed pattern leaves no residual idle time") {
  // Enough workers to hide loading behind compute.
  CHECK(serial_loader(100, 50, 0, 4).after == 0);
  CHECK(serial_loader(100, 50, 0, 4).now > 0.6);
  // Overlapped pinned copies shorter than the step.
  CHECK(pageable_copy(64e6, 6, 12, 50).after == 0);
  CHECK(blocking_copy(5, 50).after == 0);
  CHECK(sync_bubble(0.01, 1, 20, 1).after == 0);
  CHECK(alloc_in_loop(0.5, 2, 20, 1).after == 0);
  CHECK(respawn(8, 0.5, 1000, 20).after == 0);
  // A pattern already fixed in the code (workers already there) has nothing to gain.
  CHECK(serial_loader(100, 50, 8, 8).now == serial_loader(100, 50, 8, 8).after);
  // Small batches: raising the batch lowers the idle share but never to below zero.
  auto sb = small_batch(3, 4, 64, 0.5);
  CHECK(sb.after < sb.now);
  CHECK(small_batch(3, 64, 64, 0.5).now == small_batch(3, 64, 64, 0.5).after);
}

TEST_CASE("profiles move estimates in the expected direction") {
  Facts loader = {{"batch_size", "64"}, {"num_workers", "0"}};
  // A faster GPU finishes its step sooner, so the same loader starves it more.
  auto slow = eval("serial-loader", profile("l4"), loader), fast = eval("serial-loader", profile("h100-sxm"), loader);
  CHECK(fast.gain_lo > slow.gain_lo);
  CHECK(fast.gain_hi >= slow.gain_hi);
  CHECK(eval("sync-bubble", profile("b200"), {}).gain_hi > eval("sync-bubble", profile("a100-sxm"), {}).gain_hi);
  // With the same compute, a faster link makes an unpinned copy cost less.
  HardwareProfile gen3 = profile("a100-pcie"), gen5 = gen3;
  gen5.h2d_pinned_gbps *= 2;
  gen5.h2d_pageable_gbps *= 2;
  Settings s;
  s.workload.step_time_ms = 20;
  s.workload.batch_bytes = 256e6;
  CHECK(eval("pageable-copy", gen5, {}, s).gain_hi < eval("pageable-copy", gen3, {}, s).gain_hi);
  CHECK(eval("blocking-copy", gen5, {}, s).gain_hi < eval("blocking-copy", gen3, {}, s).gain_hi);
}

TEST_CASE("configured workload values replace the defaults and collapse the range") {
  Settings s;
  s.workload.step_time_ms = 50;
  s.workload.load_time_ms = 100;
  s.workload.workers = 4;
  auto r = eval("serial-loader", profile("generic"), {}, s);
  CHECK(r.gain_lo == Approx(100.0 * 100 / 150));  // T_load/(T_load+T_gpu), nothing left with 4 workers
  CHECK(r.gain_hi == Approx(r.gain_lo));
  std::string error;
  WorkloadHints h;
  CHECK(set_workload_hint(h, "step-time-ms", "12.5", error));
  CHECK(h.step_time_ms == 12.5);
  CHECK_FALSE(set_workload_hint(h, "workers", "2.5", error));
  CHECK_FALSE(set_workload_hint(h, "load-time-ms", "-1", error));
  CHECK_FALSE(set_workload_hint(h, "gpu-count", "2", error));
  CHECK_THAT(error, Catch::Contains("unknown workload key"));
}

TEST_CASE("resolved facts are used and stated among the assumptions") {
  auto hw = profile("h100-sxm");
  auto w = make_workload(hw, {{"batch_size", "8"}}, Settings{});
  auto impact = estimate_impact("serial-loader", hw, w);
  REQUIRE(impact);
  CHECK(impact->profile == "h100-sxm");
  bool stated = false;
  for (const auto& a : impact->assumptions) stated |= a == "batch_size=8 (resolved)";
  CHECK(stated);
  // Smaller batches load faster: the serial-loader gain shrinks with the batch.
  auto big = estimate_impact("serial-loader", hw, make_workload(hw, {{"batch_size", "256"}}, Settings{}));
  CHECK(big->gain_high > impact->gain_high);
}

TEST_CASE("analyze() attaches an estimate to each diagnostic of a rule with a model") {
  // Any registered rule with a real model (the rule documents come from the Python front end).
  const RuleInfo* modelled = nullptr;
  const RuleInfo* correctness = nullptr;
  for (const auto& r : RuleRegistry::builtin().all()) {
    if (!modelled && r.impact_model != "none" && !r.impact_model.empty()) modelled = &r;
    if (!correctness && r.impact_model == "none") correctness = &r;
  }
  REQUIRE(modelled);
  AnalysisResult r;
  Diagnostic d;
  d.code = modelled->code;
  d.facts = {{"batch_size", "32"}, {"num_workers", "0"}};
  r.diagnostics.push_back(d);
  Diagnostic unknown;
  unknown.code = "ZZ999";
  r.diagnostics.push_back(unknown);
  if (correctness) {
    Diagnostic c;
    c.code = correctness->code;
    r.diagnostics.push_back(c);
  }
  Settings s;
  s.gpu = "h200";
  attach_impact(r, s);
  REQUIRE(r.diagnostics[0].impact);
  CHECK(r.diagnostics[0].impact->model == modelled->impact_model);
  CHECK(r.diagnostics[0].impact->profile == "h200");
  CHECK(r.diagnostics[0].impact->gain_high > 0);
  CHECK_FALSE(r.diagnostics[1].impact);
  if (correctness) {
    REQUIRE(r.diagnostics[2].impact);
    CHECK(r.diagnostics[2].impact->model == "none");
    CHECK(r.diagnostics[2].impact->gain_high == 0);
  }

  auto busy = file_busy(r);
  CHECK(busy.any());
  CHECK(busy.now < busy.after);
  CHECK(busy.after <= 1);
  CHECK(busy.now > 0);
  CHECK_FALSE(file_busy(AnalysisResult{}).any());
}
