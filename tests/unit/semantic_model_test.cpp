// The Python semantic model, on real source text through the real parser.
#include <catch2/catch.hpp>

#include "python/parser.h"
#include "python/semantic_model.h"

using namespace stoker;
using namespace stoker::python;

namespace {

struct Model {
  std::string src;
  ParsedModule module;
  Settings settings;
  SemanticModel model;
  explicit Model(std::string text)
      : src(std::move(text)), module(src), model(src, module.root(), settings) {}

  // The first node of `kind` whose text is `t` (the nth occurrence when n > 0).
  Node find(std::string_view t, std::string_view k = {}, int n = 0) const {
    std::vector<Node> stack{module.root()};
    std::vector<Node> hits;
    while (!stack.empty()) {
      Node x = stack.back();
      stack.pop_back();
      if (text(x, src) == t && (k.empty() || kind(x) == k)) hits.push_back(x);
      for (Node c : named_children(x)) stack.push_back(c);
    }
    std::sort(hits.begin(), hits.end(), [](Node a, Node b) { return start(a) < start(b); });
    REQUIRE(static_cast<int>(hits.size()) > n);
    return hits[n];
  }
  std::optional<long long> int_of(std::string_view t, int n = 0) const { return model.constant_int(find(t, {}, n)); }
  LoopKind loop_kind(std::string_view loop_head) const {
    for (const auto& l : model.loops())
      if (text(l.node, src).substr(0, loop_head.size()) == loop_head) return l.kind;
    FAIL("no loop starting with " << loop_head);
    return LoopKind::Setup;
  }
};

}  // namespace

TEST_CASE("qualified names through every import form, and shadowing") {
  Model m(R"(import torch.utils.data as tud
from torch.utils import data
from torch.utils.data import DataLoader as DL
import lightning as L
import torch
a = tud.DataLoader(ds)
b = data.DataLoader(ds)
c = DL(ds)
d = torch.utils.data.DataLoader(ds)
class M(L.LightningModule):
    pass
def f():
    DL = make_loader
    return DL(ds)
)");
  CHECK(m.model.callee_name(m.find("tud.DataLoader(ds)")) == "torch.utils.data.DataLoader");
  CHECK(m.model.callee_name(m.find("data.DataLoader(ds)")) == "torch.utils.data.DataLoader");
  CHECK(m.model.callee_name(m.find("DL(ds)")) == "torch.utils.data.DataLoader");
  CHECK(m.model.callee_name(m.find("torch.utils.data.DataLoader(ds)")) == "torch.utils.data.DataLoader");
  CHECK(m.model.is_lightning_module(0));
  CHECK(m.model.callee_name(m.find("DL(ds)", "call", 1)).empty());  // shadowed by a local
}

TEST_CASE("resolved values: literals, constants, argparse, defaults, self attributes") {
  Model m(R"(import argparse
WORKERS = 4
SIZE = 8 * 4
parser = argparse.ArgumentParser()
parser.add_argument("-b", "--batch-size", type=int, default=64)
parser.add_argument("-j", type=int, default=2)
parser.add_argument("--lr", dest="learning_rate", default=0.1)
parser.add_argument("--fast", action="store_true")
args = parser.parse_args()
def run(n=3, m=WORKERS):
    use(n, m)
class T:
    def __init__(self):
        self.bs = 16
    def go(self):
        use(self.bs)
use(WORKERS, SIZE, args.batch_size, args.j, args.learning_rate, args.fast)
run()
)");
  CHECK(m.int_of("WORKERS", 2) == 4);
  CHECK(m.int_of("SIZE", 1) == 32);
  CHECK(m.int_of("args.batch_size") == 64);
  CHECK(m.int_of("args.j") == 2);
  auto lr = m.model.constant(m.find("args.learning_rate"));
  REQUIRE(lr);
  CHECK(lr->f == Approx(0.1));
  auto fast = m.model.constant(m.find("args.fast"));
  REQUIRE(fast);
  CHECK(fast->kind == Value::Kind::Bool);
  CHECK_FALSE(fast->b);
  CHECK(m.int_of("n", 1) == 3);  // default used by the only call site
  CHECK(m.int_of("m", 1) == 4);
  CHECK(m.int_of("self.bs", 1) == 16);
}

TEST_CASE("parameters resolve through call sites") {
  Model m(R"(def make(workers):
    return workers
make(0)
make(0)
def other(k):
    return k
other(1)
other(2)
)");
  CHECK(m.int_of("workers", 1) == 0);
  CHECK_FALSE(m.int_of("k", 1).has_value());  // two different values: unknown
}

TEST_CASE("comparisons of known values: None tests, equality, membership, device types") {
  Model m(R"(import os
import torch
dev = torch.device("cuda")
def evaluate(x, criterion=None, mode="val", where=None):
    a = criterion is not None
    b = criterion is None
    c = mode == "val"
    d = mode in ("train", "test")
    e = "mps" in dev.type
    f = dev.type != "cpu"
    g = where.type == "cpu"
    h = x is None
evaluate(1)
evaluate(2, mode="val")
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--rank", type=int, default=-1)
parser.add_argument("--local", type=int, default=-1)
args = parser.parse_args()
args.rank = int(os.environ["RANK"])
r = args.rank == 0
l = args.local == 0
bank = None
for i in range(3):
    if bank is None:
        bank = i
)");
  auto bool_of = [&](std::string_view t) -> std::optional<bool> {
    auto c = m.model.constant(m.find(t, "comparison_operator"));
    if (!c || c->kind != Value::Kind::Bool) return std::nullopt;
    return c->b;
  };
  CHECK(bool_of("criterion is not None") == false);  // no call site passes it
  CHECK(bool_of("criterion is None") == true);
  CHECK(bool_of("mode == \"val\"") == true);      // the default and a call site agree
  CHECK(bool_of("mode in (\"train\", \"test\")") == false);
  CHECK(bool_of("\"mps\" in dev.type") == false);  // a device known to be CUDA
  CHECK(bool_of("dev.type != \"cpu\"") == true);
  CHECK_FALSE(bool_of("where.type == \"cpu\"").has_value());  // the device is unknown
  CHECK_FALSE(bool_of("x is None").has_value());         // 1 and 2 at the call sites: not one constant
  CHECK(bool_of("args.local == 0") == false);              // the argparse default
  CHECK_FALSE(bool_of("args.rank == 0").has_value());    // the attribute is assigned too
  CHECK_FALSE(bool_of("bank is None").has_value());             // bound again under the test
}

TEST_CASE("dict literals passed as **kwargs, with update() and item assignment") {
  Model m(R"(from torch.utils.data import DataLoader
kw = {"batch_size": 32}
kw.update({"num_workers": 0})
kw["pin_memory"] = True
extra = dict(shuffle=True)
loader = DataLoader(ds, **kw, **extra)
opaque = DataLoader(ds, **unknown_kwargs)
)");
  auto kw = m.model.keyword_arguments(m.find("DataLoader(ds, **kw, **extra)"));
  CHECK(kw.complete);
  CHECK(m.model.constant_int(kw.find("batch_size")) == 32);
  CHECK(m.model.constant_int(kw.find("num_workers")) == 0);
  CHECK(m.model.constant(kw.find("pin_memory"))->b);
  CHECK(m.model.constant(kw.find("shuffle"))->b);
  CHECK_FALSE(m.model.keyword_arguments(m.find("DataLoader(ds, **unknown_kwargs)")).complete);
}

TEST_CASE("loop classification: hot, epoch and setup loops") {
  Model m(R"(import itertools
import torch
from torch.utils.data import DataLoader
from tqdm import tqdm
loader = DataLoader(ds)
def step(model, x, opt):
    loss = model(x).sum()
    loss.backward()
    opt.step()
def train_epoch(model, opt):
    for i, (x, y) in enumerate(tqdm(loader)):
        step(model, x, opt)
for epoch in range(10):
    train_epoch(model, optimizer)
for x in itertools.islice(loader, 5):
    pass
for a, b in zip(loader, loader):
    pass
for w in range(3):
    buffers.append(torch.zeros(3))
for it in range(100):
    out = net(inputs)
    out.backward()
    opt.step()
)");
  CHECK(m.loop_kind("for i, (x, y)") == LoopKind::Hot);
  CHECK(m.loop_kind("for epoch") == LoopKind::Epoch);
  CHECK(m.loop_kind("for x in itertools") == LoopKind::Hot);
  CHECK(m.loop_kind("for a, b in zip") == LoopKind::Hot);
  CHECK(m.loop_kind("for w in") == LoopKind::Setup);
  CHECK(m.loop_kind("for it in") == LoopKind::Hot);  // full-batch training
  // step() is called from a hot loop: its body is hot, with the call site as the way in.
  int step_fn = -1;
  for (size_t f = 0; f < m.model.functions().size(); ++f)
    if (m.model.functions()[f].name == "step") step_fn = static_cast<int>(f);
  REQUIRE(step_fn >= 0);
  CHECK(m.model.function_is_hot(step_fn));
  CHECK(m.model.function_hot_context(step_fn).via_call.has_value());
}

TEST_CASE("hot callees are found transitively and recursion terminates") {
  Model m(R"(import torch
def a(n):
    b(n)
def b(n):
    a(n - 1)
    t = torch.zeros(1).cuda()
def train(loader, opt, loss):
    for x in loader:
        a(3)
        loss.backward()
        opt.step()
)");
  for (size_t f = 0; f < m.model.functions().size(); ++f) {
    INFO(m.model.functions()[f].name);
    CHECK(m.model.function_is_hot(static_cast<int>(f)) == (m.model.functions()[f].name != "train"));
  }
}

TEST_CASE("Lightning step hooks are hot bodies") {
  Model m(R"(import pytorch_lightning as pl
class Lit(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        return batch.sum()
    def configure_optimizers(self):
        return None
)");
  CHECK(m.model.uses_cuda());
  CHECK(m.model.is_step_hook(0));
  CHECK(m.model.function_is_hot(0));
  CHECK_FALSE(m.model.function_is_hot(1));
}

TEST_CASE("uses CUDA, CUDA values and device kinds") {
  Model gpu(R"(import numpy as np
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
x = batch.to(device)
out = model(x)
loss = crit(out, y)
arr = np.zeros(3)
n = loss.item()
s = out.shape
)");
  CHECK(gpu.model.uses_cuda());
  CHECK(gpu.model.device_kind(gpu.find("device", "identifier", 1)) == SemanticModel::DeviceKind::Cuda);
  CHECK(gpu.model.is_cuda(gpu.find("loss", "identifier", 1)));
  CHECK(gpu.model.is_cuda(gpu.find("out", "identifier", 1)));
  CHECK_FALSE(gpu.model.is_cuda(gpu.find("arr", "identifier")));
  CHECK_FALSE(gpu.model.is_cuda(gpu.find("n", "identifier")));
  CHECK_FALSE(gpu.model.is_cuda(gpu.find("s", "identifier")));
  Model cpu(R"(import torch
x = torch.zeros(3).to("cpu")
loss = model(x)
v = loss.item()
)");
  CHECK_FALSE(cpu.model.uses_cuda());
  CHECK_FALSE(cpu.model.is_cuda(cpu.find("loss", "identifier", 1)));
  Model ordinal("import torch\nx = y.to(0)\nz = w.cuda(1)\n");
  CHECK(ordinal.model.uses_cuda());
}

TEST_CASE("amortization under step-counter conditions") {
  Model m(R"(import torch
def train(loader, opt, log_every=50):
    for i, x in enumerate(loader):
        loss = x.cuda().sum()
        loss.backward()
        opt.step()
        if i % 10 == 0:
            a = 1
        if i % log_every == 0:
            b = 1
        if i % 1 == 0:
            c = 1
        if i == 0:
            d = 1
)");
  std::map<std::string, HotContext> seen;
  m.model.walk([&](Node n, const WalkFrame& f) {
    if (is(n, "assignment")) seen[std::string(text(field(n, "left"), m.src))] = m.model.hot_context(f, start(n));
  });
  CHECK(seen["loss"].hot);
  CHECK(seen["loss"].every == 0);
  CHECK(seen["a"].every == 10);
  CHECK(seen["b"].every == 50);
  CHECK(seen["c"].every == 0);
  CHECK(seen["d"].once_per_epoch);
}

// SemanticModel::walk classifies each node by a per-symbol table and reads its children and fields
// from the installed ChildIndex (or from tree-sitter without one): both give every node the same
// frame, and the frames are the contexts the source says.
TEST_CASE("the walk's frames: loops, functions, guards, else branches, conditional expressions, lambdas") {
  Model m(R"(import torch
def train(loader, opt, flag):
    for x in loader:
        loss = x.sum()
        loss.backward()
        opt.step()
        if flag:
            a = x.cuda()
        elif x is None:
            b = 1
        else:
            c = 2
        d = [y.item() for y in x if y]
        e = x.cpu() if flag else x.float()
        f = lambda z: z.item()
    while True:
        g = 3
class Net:
    def forward(self, x):
        return x
)");
  struct Seen {
    uint32_t at;
    std::string kind;
    int function, klass, lambda_depth;
    std::vector<int> loops;
    std::vector<std::pair<uint32_t, bool>> guards;
    std::vector<uint32_t> guard_loop_depth;
    bool operator==(const Seen&) const = default;
  };
  auto record = [&] {
    std::vector<Seen> out;
    m.model.walk([&](Node n, const WalkFrame& f) {
      Seen s{start(n), std::string(kind(n)), f.function, f.klass, f.lambda_depth, f.loops, {}, f.guard_loop_depth};
      for (const auto& [cond, polarity] : f.guards) s.guards.push_back({start(cond), polarity});
      out.push_back(std::move(s));
    });
    return out;
  };
  std::vector<Seen> plain = record();
  ChildIndex index(m.module.root());
  std::vector<Seen> indexed;
  {
    ScopedChildIndex use(&index);
    indexed = record();
  }
  REQUIRE(plain.size() == indexed.size());
  CHECK(plain == indexed);
  auto frame_of = [&](std::string_view t, std::string_view k) {
    Node n = m.find(t, k);
    for (const Seen& s : indexed)
      if (s.at == start(n) && s.kind == k) return s;
    FAIL("not walked: " << t);
    return Seen{};
  };
  uint32_t flag1 = start(m.find("flag", "identifier", 1));  // `if flag:`
  uint32_t none_test = start(m.find("x is None"));
  Seen a = frame_of("a = x.cuda()", "assignment");
  CHECK(a.function == 0);
  CHECK(a.loops.size() == 1);
  CHECK(a.guards == std::vector<std::pair<uint32_t, bool>>{{flag1, true}});
  CHECK(frame_of("b = 1", "assignment").guards == std::vector<std::pair<uint32_t, bool>>{{none_test, true}});
  CHECK(frame_of("c = 2", "assignment").guards == std::vector<std::pair<uint32_t, bool>>{{flag1, false}});
  Seen item = frame_of("y.item()", "call");
  CHECK(item.loops == a.loops);  // a comprehension that is no hot loop opens no loop context
  Seen cpu = frame_of("x.cpu()", "call"), sum = frame_of("x.float()", "call");
  uint32_t flag2 = start(m.find("flag", "identifier", 2));  // `if flag else`
  CHECK(cpu.guards == std::vector<std::pair<uint32_t, bool>>{{flag2, true}});
  CHECK(sum.guards == std::vector<std::pair<uint32_t, bool>>{{flag2, false}});
  CHECK(frame_of("z.item()", "call").lambda_depth == 1);
  CHECK(frame_of("g = 3", "assignment").loops.size() == 1);
  CHECK(frame_of("g = 3", "assignment").guards.empty());
  Seen ret = frame_of("return x", "return_statement");
  CHECK(ret.function == 1);
  CHECK(ret.klass == 0);
  CHECK(ret.loops.empty());
}
