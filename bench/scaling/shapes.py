"""Generators for the source shapes that stress the Python semantic model (bench/scaling).

Each generator takes a size n and returns the text of one Python file that starts with
`import torch` (so the prefilter lets it through to the full analysis) and ends with code the
rules report on (a DataLoader, where the shape allows with a batch size resolved through the
shape, and a loop over it copying batches to the GPU), so that the resolution the shape stresses
is actually asked for and a file whose analysis was cut short shows it.
"""
import os

HEAD = [
    "import torch",
    "from torch.utils.data import DataLoader, TensorDataset",
    "",
    "ds = TensorDataset(torch.randn(64, 8))",
]


def _file(lines):
    return "\n".join(HEAD + lines) + "\n"


def _loader_tail(batch_expr, indent=""):
    return [
        f"{indent}loader = DataLoader(ds, batch_size={batch_expr})",
        f"{indent}for (x,) in loader:",
        f"{indent}    x = x.cuda()",
        f"{indent}    print(x.sum().item())",
    ]


def assign_chain(n):
    """x0 = 16; x1 = x0 + 1; ... one long chain of assignments, the last one a batch size."""
    lines = ["x0 = 16"] + [f"x{i} = x{i - 1} + 1" for i in range(1, n)]
    return _file(lines + _loader_tail(f"x{n - 1}"))


def rebind_sequential_if(n):
    """bs = 16, then n sequential `if cK: bs = bs + 1` (every binding reaches the use)."""
    lines = ["import sys", "bs = 16"]
    for i in range(n):
        lines += [f"if len(sys.argv) > {i % 5}:", "    bs = bs + 1"]
    return _file(lines + _loader_tail("bs"))


def rebind_elif_chain(n):
    """One if/elif/.../else with n branches, each rebinding the same name."""
    lines = ["import sys", "k = len(sys.argv)", "if k == 0:", "    bs = 16"]
    for i in range(1, n):
        lines += [f"elif k == {i}:", f"    bs = {16 + i}"]
    lines += ["else:", "    bs = 8"]
    return _file(lines + _loader_tail("bs"))


def rebind_nested_if_else(n):
    """if/else nested n deep, both branches rebinding one name from its previous value (each
    else holds the next level): 2^n paths, so only memoized or capped resolution stays linear."""
    lines = ["import sys", "bs = 16"]
    for d in range(n):
        pad = "    " * d
        lines += [f"{pad}if len(sys.argv) > {d % 7}:", f"{pad}    bs = bs * 2", f"{pad}else:", f"{pad}    bs = bs + 1"]
    return _file(lines + _loader_tail("bs"))


def mutual_recursion(n):
    """n functions that call each other in a ring (and skip ahead), each looping over a loader
    parameter and passing it on."""
    lines = []
    for i in range(n):
        lines += [
            f"def f{i}(loader, depth):",
            "    for (x,) in loader:",
            "        x = x.cuda()",
            f"        f{(i + 1) % n}(loader, depth - 1)",
            f"    return f{(i + 7) % n}(loader, depth + 1)",
            "",
        ]
    lines += ["f0(DataLoader(ds, batch_size=32), 3)"]
    return _file(lines + _loader_tail("64"))


def dict_literal(n):
    """A config dict literal of n entries, indexed for a batch size and splatted into a loader."""
    lines = ["cfg = {"] + [f"    'k{i}': {i}," for i in range(n)] + ["}", "opts = {'num_workers': 4}"]
    return _file(lines + _loader_tail(f"cfg['k{n - 1}']"))


def list_literal(n):
    """A list literal of n entries, iterated and indexed."""
    lines = ["sizes = ["] + [f"    {16 + i % 64}," for i in range(n)] + ["]", "for s in sizes:", "    y = torch.zeros(s).cuda()"]
    return _file(lines + _loader_tail(f"sizes[{n - 1}]"))


def call_chain(n):
    """g0 .. g(n-1), each returning the previous one's result plus one; the last one's result
    is the batch size."""
    lines = ["def g0(x):", "    return x", ""]
    for i in range(1, n):
        lines += [f"def g{i}(x):", f"    return g{i - 1}(x) + 1", ""]
    return _file(lines + _loader_tail(f"g{n - 1}(16)"))


def moved_factory_chain(n):
    """f0 builds a host tensor and moves it (TX002), f1 .. f(n-1) each only call the previous
    one: the climb through callers that asks whether f0 can run is n deep (session 24: it
    recursed once per caller and a 30,000-function chain overflowed the stack)."""
    lines = ["def f0():", "    return torch.zeros(3).cuda()", ""]
    for i in range(1, n):
        lines += [f"def f{i}():", f"    return f{i - 1}()", ""]
    return _file(lines + [f"f{n - 1}()"])


def method_chain(n):
    """One expression: a tensor method chain n calls long (an n-deep attribute/call tree; CPython
    itself compiles chains up to about 1,000 calls, tree-sitter and stoker take any length)."""
    chain = "torch.zeros(3)" + ".add(1)" * n
    return _file([f"y = {chain}", "print(y.cuda().sum().item())"] + _loader_tail("32"))


def small_functions(n):
    """n small functions, each with a loop over its loader parameter and a host sync."""
    lines = []
    for i in range(n):
        lines += [f"def step{i}(loader):", "    for (x,) in loader:", "        x = x.cuda()",
                  "        print(x.sum().item())", "    return x", ""]
    lines += [f"step{i}(DataLoader(ds, batch_size={8 + i % 32}))" for i in range(0, n, max(1, n // 50))]
    return _file(lines + _loader_tail("64"))


def training_module(n):
    """A realistic module of about n lines (whole blocks): model classes, loader factories and
    training functions, each training function looping over a loader made by a factory."""
    lines = ["import torch.nn as nn", "import torch.nn.functional as F", ""]
    i = 0
    while len(lines) + len(HEAD) < n:
        lines += [
            f"class Block{i}(nn.Module):",
            f"    def __init__(self, width={64 + i % 7}):",
            "        super().__init__()",
            "        self.fc = nn.Linear(width, width)",
            "",
            "    def forward(self, x):",
            "        return F.relu(self.fc(x))",
            "",
            f"def make_loader{i}(batch_size={16 + i % 48}):",
            "    return DataLoader(ds, batch_size=batch_size, shuffle=True)",
            "",
            f"def train{i}(model, epochs=2):",
            f"    loader = make_loader{i}()",
            "    opt = torch.optim.SGD(model.parameters(), lr=0.1)",
            "    for epoch in range(epochs):",
            "        for (x,) in loader:",
            "            loss = model(x.cuda()).sum()",
            "            opt.zero_grad()",
            "            loss.backward()",
            "            opt.step()",
            "            print(loss.item())",
            "",
        ]
        i += 1
    return _file(lines)


def k_self_calls(n):
    """The issue's exponential shape: a function with n self-calls and a loop calling its
    callback parameter."""
    lines = ["def f(cb):", "    for _ in range(3):", "        cb()"] + ["    f(cb)"] * n
    return _file(lines + ["f(lambda: torch.zeros(1).cuda())"] + _loader_tail("64"))


def two_recursive_returns(n):
    """n functions, each with two returns calling itself and the next one; a loop over the
    first one's result (2 candidates per level)."""
    lines = ["def g():", "    return torch.cuda.is_available()", ""]
    for i in range(n):
        lines += [f"def f{i}():", "    if g():", f"        return f{i}()", f"    return f{(i + 1) % n}()", ""]
    lines += ["for x in f0():", "    pass"]
    return _file(lines + _loader_tail("64"))


def recursive_elif_branches(n):
    """The shape of re/_compiler.py:_compile: one recursive function whose n if/elif branches
    each call it again, over a loop."""
    lines = ["def _compile(code, pattern, flags):", "    for op, av in pattern:"]
    for i in range(n):
        kw = "if" if i == 0 else "elif"
        lines += [f"        {kw} op == {i}:", f"            _compile(code, av[{i % 3}], flags | {i})"]
    lines += ["        else:", "            code.append(op)", "    return code", "",
              "for c in _compile([], [(0, [1, 2, 3])], 0):", "    torch.zeros(c).cuda()"]
    return _file(lines + _loader_tail("64"))


def helper_many_callers(n):
    """A loader helper called from n places, each feeding a zip(...) loop."""
    lines = ["def make(batch_size=32, workers=0):", "    return DataLoader(ds, batch_size=batch_size, num_workers=workers)", ""]
    for i in range(n):
        lines += [f"def run{i}():", f"    a = make({8 + i % 32})", f"    b = make(workers={i % 4})",
                  "    for (x,), (y,) in zip(a, b):", "        print((x.cuda() + y.cuda()).sum().item())", ""]
    return _file(lines + _loader_tail("64"))


def _examples_text():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
    parts = []
    for name in sorted(os.listdir(root)):
        if name.endswith(".py"):
            with open(os.path.join(root, name), encoding="utf-8") as f:
                parts.append(f.read())
    return "\n".join(parts)


def examples_replicated(n):
    """The shipped Python examples concatenated, the whole repeated n times (issue 9 item 8:
    every loop checked against every loader)."""
    return _examples_text() * n


# name -> (generator, sizes, what the size counts): each size twice the one before, except the
# replication series, which is the one issue 9 measured (1/10/100/1000 copies).
def _doubling(base):
    return [base, 2 * base, 4 * base, 8 * base]


SHAPES = {
    "assign_chain": (assign_chain, _doubling(2500), "assignments"),
    "rebind_sequential_if": (rebind_sequential_if, _doubling(1000), "if blocks"),
    "rebind_elif_chain": (rebind_elif_chain, _doubling(250), "branches"),
    "rebind_nested_if_else": (rebind_nested_if_else, _doubling(7), "nesting depth"),
    "mutual_recursion": (mutual_recursion, _doubling(250), "functions"),
    "dict_literal": (dict_literal, _doubling(5000), "entries"),
    "list_literal": (list_literal, _doubling(5000), "entries"),
    "call_chain": (call_chain, _doubling(500), "functions"),
    "moved_factory_chain": (moved_factory_chain, _doubling(5000), "functions"),
    "method_chain": (method_chain, _doubling(1000), "calls"),
    "small_functions": (small_functions, _doubling(1000), "functions"),
    "training_module": (training_module, _doubling(6250), "lines"),
    "k_self_calls": (k_self_calls, _doubling(4), "self-calls"),
    "two_recursive_returns": (two_recursive_returns, _doubling(50), "functions"),
    "recursive_elif_branches": (recursive_elif_branches, _doubling(50), "branches"),
    "helper_many_callers": (helper_many_callers, _doubling(250), "call sites"),
    "examples_replicated": (examples_replicated, [1, 10, 100, 1000], "copies"),
}
