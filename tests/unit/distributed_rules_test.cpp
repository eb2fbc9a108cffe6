// The DD rules' fixes, applied and re-parsed; DD001's display-only rewrite; the DD impact models.
#include <catch2/catch.hpp>

#include "core/impact.h"
#include "core/impact_distributed.h"
#include "python/parser.h"
#include "test_support.h"

using namespace stoker;

namespace {

const Diagnostic* find_code(const AnalysisResult& r, std::string_view code) {
  for (const auto& d : r.diagnostics)
    if (d.code == code) return &d;
  return nullptr;
}

// Applies one fix's edits, whatever its applicability (the display-only rewrite included).
std::string apply(std::string text, const Fix& fix) {
  auto edits = fix.edits;
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.range.start > b.range.start; });
  for (const auto& e : edits) text.replace(e.range.start, e.range.end - e.range.start, e.replacement);
  return text;
}

const char* kDdpHeader = R"(import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset

dist.init_process_group("nccl")
rank = dist.get_rank()
torch.cuda.set_device(rank)
loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randint(0, 4, (64,))), batch_size=8,
                    num_workers=2, pin_memory=True, persistent_workers=True)
)";

}  // namespace

TEST_CASE("DD002: the unsafe fix writes False where True is a literal, and the result parses clean") {
  std::string text = std::string(kDdpHeader) +
                     "model = DDP(torch.nn.Linear(8, 4).cuda(), device_ids=[rank], find_unused_parameters=True)\n";
  auto r = test::analyze_text("t.py", text);
  const Diagnostic* d = find_code(r, "DD002");
  REQUIRE(d);
  REQUIRE(d->fix);
  CHECK(d->fix->applicability == Applicability::Unsafe);
  REQUIRE(d->fix->edits.size() == 1);
  std::string fixed = apply(text, *d->fix);
  CHECK(fixed.find("find_unused_parameters=False)") != std::string::npos);
  CHECK(python::count_syntax_errors(fixed) == 0);
  CHECK_FALSE(find_code(test::analyze_text("t.py", fixed), "DD002"));
  // From a flag: reported, no edit (the configuration is the user's).
  std::string flag = std::string(kDdpHeader) + "USE = True\nmodel = DDP(torch.nn.Linear(8, 4).cuda(), find_unused_parameters=USE)\n";
  auto f_result = test::analyze_text("t.py", flag);
  const Diagnostic* f = find_code(f_result, "DD002");
  REQUIRE(f);
  CHECK(f->fix->edits.empty());
}

TEST_CASE("DD003: gloo to nccl, safe when every collective is on CUDA, unsafe otherwise") {
  std::string cuda_only = R"(import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group(backend="gloo")
rank = dist.get_rank()
model = DDP(torch.nn.Linear(8, 4).cuda(rank), device_ids=[rank])
)";
  auto r = test::analyze_text("t.py", cuda_only);
  const Diagnostic* d = find_code(r, "DD003");
  REQUIRE(d);
  CHECK(d->fix->applicability == Applicability::Safe);
  std::string fixed = apply(cuda_only, *d->fix);
  CHECK(fixed.find("init_process_group(backend=\"nccl\")") != std::string::npos);
  CHECK(python::count_syntax_errors(fixed) == 0);
  CHECK_FALSE(find_code(test::analyze_text("t.py", fixed), "DD003"));

  std::string mixed = cuda_only + "counts = torch.zeros(3)\ndist.all_reduce(counts)\n";
  auto m_result = test::analyze_text("t.py", mixed);
  const Diagnostic* m = find_code(m_result, "DD003");
  REQUIRE(m);
  CHECK(m->fix->applicability == Applicability::Unsafe);
  // Without CUDA anywhere: gloo is the right backend.
  std::string cpu = "import torch\nimport torch.distributed as dist\ndist.init_process_group(\"gloo\")\n"
                    "t = torch.zeros(3)\ndist.all_reduce(t)\n";
  CHECK_FALSE(find_code(test::analyze_text("t.py", cpu), "DD003"));
}

TEST_CASE("DD001: the display-only rewrite puts forward and backward under no_sync and is silent after") {
  std::string text = std::string(kDdpHeader) + R"(ACCUM = 4
model = DDP(torch.nn.Linear(8, 4).cuda(), device_ids=[rank])
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for i, (x, y) in enumerate(loader):
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        out = model(x)
        # the loss, scaled
        loss = F.cross_entropy(out,
                               y) / ACCUM
        loss.backward()
        if (i + 1) % ACCUM == 0:
            optimizer.step()
            optimizer.zero_grad()
)";
  auto r = test::analyze_text("t.py", text);
  const Diagnostic* d = find_code(r, "DD001");
  REQUIRE(d);
  REQUIRE(d->fix);
  CHECK(d->fix->applicability == Applicability::DisplayOnly);
  REQUIRE_FALSE(d->fix->edits.empty());
  bool has_period = false;
  for (const auto& [k, v] : d->facts) has_period |= k == "accumulate_every" && v == "4";
  CHECK(has_period);
  std::string fixed = apply(text, *d->fix);
  INFO(fixed);
  CHECK(python::count_syntax_errors(fixed) == 0);
  CHECK(fixed.rfind("import contextlib\nimport torch\n", 0) == 0);
  CHECK(fixed.find("        with model.no_sync() if (i + 1) % ACCUM != 0 else contextlib.nullcontext():\n"
                   "            out = model(x)\n"
                   "            # the loss, scaled\n"
                   "            loss = F.cross_entropy(out,\n"
                   "                                   y) / ACCUM\n"
                   "            loss.backward()\n"
                   "        if (i + 1) % ACCUM == 0:\n") != std::string::npos);
  CHECK_FALSE(find_code(test::analyze_text("t.py", fixed), "DD001"));

  // The step condition recomputed between forward and backward: no edit, still reported.
  std::string moving = std::string(kDdpHeader) + R"(ACCUM = 4
model = DDP(torch.nn.Linear(8, 4).cuda(), device_ids=[rank])
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
i = 0
for x, y in loader:
    loss = F.cross_entropy(model(x.cuda()), y.cuda())
    i += 1
    loss.backward()
    if i % ACCUM == 0:
        optimizer.step()
)";
  auto m_result = test::analyze_text("t.py", moving);
  const Diagnostic* m = find_code(m_result, "DD001");
  REQUIRE(m);
  CHECK(m->fix->edits.empty());
}

TEST_CASE("DD impact models: the accumulation factor narrows DD001, transports differ, DD006 is correctness") {
  const HardwareProfile& hw = *find_profile("h100-sxm");
  Settings s;
  auto eval = [&](std::string_view model, std::vector<std::pair<std::string, std::string>> facts) {
    auto r = evaluate_model(model, hw, make_workload(hw, facts, s));
    REQUIRE(r);
    return *r;
  };
  auto unresolved = eval("allreduce-per-microstep", {});
  auto k2 = eval("allreduce-per-microstep", {{"accumulate_every", "2"}});
  auto k16 = eval("allreduce-per-microstep", {{"accumulate_every", "16"}});
  CHECK(k2.gain_hi < k16.gain_hi);             // more micro-steps per step: more all-reduces saved
  CHECK(k16.gain_hi <= 55.0 + 1e-9);           // never more than the all-reduce share itself
  CHECK(unresolved.gain_lo <= k2.gain_lo);
  // Accelerate's multi-node figure: at a = 0.55 and many micro-steps, 2.00 s -> ~0.91 s per batch.
  Idle big = allreduce_per_microstep(0.545, 1000);
  CHECK(big.now == Approx(0.545));
  CHECK(big.after < 0.01);
  CHECK(eval("slow-collective", {{"kind", "shm"}}).gain_hi < eval("slow-collective", {{"kind", "gloo"}}).gain_hi);
  auto impact = estimate_impact("allreduce-per-microstep", hw, make_workload(hw, {{"accumulate_every", "4"}}, s));
  REQUIRE(impact);
  bool listed = false;
  for (const auto& a : impact->assumptions) listed |= a.find("micro-steps per optimizer step=4 (resolved)") != std::string::npos;
  CHECK(listed);

  auto r = test::analyze_text("fixture.py", test::read_file(std::filesystem::path(STOKER_SOURCE_DIR) /
                                                            "tests/fixtures/python/DD006.py"));
  const Diagnostic* d = find_code(r, "DD006");
  REQUIRE(d);
  REQUIRE(d->impact);
  CHECK(d->impact->model == "none");
  auto r5 = test::analyze_text("fixture.py", test::read_file(std::filesystem::path(STOKER_SOURCE_DIR) /
                                                             "tests/fixtures/python/DD005.py"));
  const Diagnostic* p2p = find_code(r5, "DD005");
  REQUIRE(p2p);
  REQUIRE(p2p->impact);
  CHECK(p2p->impact->model == "slow-collective");
  CHECK(p2p->impact->gain_high > 0);
}

TEST_CASE("DD001 walks a deeply nested step condition without recursion") {
  std::string nested;
  for (int i = 0; i < 20000; ++i) nested += "(0 + ";
  nested += "i";
  nested += std::string(20000, ')');
  std::string text = std::string(kDdpHeader) + "model = DDP(torch.nn.Linear(8, 4).cuda(), device_ids=[rank])\n"
                     "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                     "for i, (x, y) in enumerate(loader):\n"
                     "    loss = F.cross_entropy(model(x.cuda()), y.cuda())\n"
                     "    loss.backward()\n"
                     "    if (" + nested + " + 1) % 4 == 0:\n"
                     "        optimizer.step()\n";
  auto r = test::analyze_text("t.py", text);
  CHECK(r.errors.empty());
  const Diagnostic* d = find_code(r, "DD001");
  REQUIRE(d);
  CHECK_FALSE(d->fix->edits.empty());
}
