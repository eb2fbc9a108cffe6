#!/usr/bin/env python3
"""Project mode against file-by-file on a generated 1,000-file repository (docs/architecture.md,
"Project mode"; issue 10: at most 30% over file-by-file).

    python3 bench/project/run.py build/stoker [OTHER_STOKER ...] [--files 1000] [--repeat 3] [--keep DIR] [--dir REPO]

The repository: a library package (`lib/`, about 80% of the files: model blocks that import and
call each other through absolute and relative imports, helpers, a re-exporting __init__.py) and
training projects in the issue's layout (`projects/pN/{main,engine,utils,data}.py`: device,
loaders and the epoch loop in main.py, the step in engine.py, metric helpers in utils.py).
Both runs are one `stoker check --no-cache --output-format json DIR` process with --threads 1;
the figure is CPU time (user + system, from getrusage of the children), the median of --repeat runs
(both modes of every binary given, interleaved in each repetition), and the ratio project /
file-by-file (`--no-project`), the median of the repetitions' ratios. It also prints the findings of
each mode. --dir measures an existing directory instead (a real repository: the torch package,
/usr/lib/python3/dist-packages/torch, 1,141 files).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def generate(root, files):
    rng = random.Random(10)
    n_projects = max(1, files // 25)
    n_lib = files - 4 * n_projects - 2
    write(os.path.join(root, "lib", "__init__.py"), "from .block_0 import Block0, make_block\n")
    for i in range(n_lib):
        deps = sorted({rng.randrange(0, i) for _ in range(min(i, 2))})
        imports = "".join(f"from .block_{d} import Block{d}, make_block as make_block_{d}\n" for d in deps)
        uses = "".join(f"        self.sub{d} = Block{d}(dim, hidden={rng.choice([64, 128, 256])})\n" for d in deps)
        calls = "".join(f"        x = self.sub{d}(x)\n" for d in deps)
        helper = "".join(f"    extra.append(make_block_{d}(dim))\n" for d in deps)
        write(os.path.join(root, "lib", f"block_{i}.py"), f'''import math

import torch
import torch.nn as nn
import torch.nn.functional as F

{imports}

class Block{i}(nn.Module):
    def __init__(self, dim, hidden=128, dropout=0.0):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.drop = nn.Dropout(dropout)
{uses}
    def forward(self, x):
        h = F.gelu(self.fc1(x))
        x = x + self.drop(self.fc2(h)) / math.sqrt(2.0)
{calls}        return x


def make_block(dim, depth=1):
    extra = []
{helper}    return nn.Sequential(*[Block{i}(dim) for _ in range(depth)], *extra)


def init_weights(module, std=0.02):
    for p in module.parameters():
        if p.dim() > 1:
            nn.init.normal_(p, std=std)
    return module
''')
    write(os.path.join(root, "tools", "stats.py"), "def mean(xs):\n    return sum(xs) / max(len(xs), 1)\n")
    for p in range(n_projects):
        d = os.path.join(root, "projects", f"p{p}")
        b = rng.randrange(0, n_lib)
        write(os.path.join(d, "main.py"), f'''import argparse

import torch
from torch.utils.data import DataLoader

import utils
from data import build_dataset
from engine import evaluate, train_one_epoch
from lib.block_{b} import Block{b}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    device = torch.device("cuda")
    model = Block{b}(64).to(device)
    criterion = torch.nn.MSELoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    train_loader = DataLoader(build_dataset(4096), batch_size=64, shuffle=True, num_workers=args.workers)
    val_loader = DataLoader(build_dataset(512), batch_size=64, num_workers=args.workers)
    print(utils.count_parameters(model))
    for epoch in range(args.epochs):
        train_one_epoch(model, criterion, train_loader, optimizer, device, epoch)
        evaluate(model, val_loader, device)


if __name__ == "__main__":
    main()
''')
        write(os.path.join(d, "engine.py"), '''import torch

import utils


def train_one_epoch(model, criterion, data_loader, optimizer, device, epoch, print_freq=10):
    model.train()
    logger = utils.MetricLogger()
    for i, (x, y) in enumerate(data_loader):
        x = x.to(device)
        y = y.to(device)
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        logger.update(loss=loss)
        if i % print_freq == 0:
            print(epoch, i, logger)


@torch.no_grad()
def evaluate(model, data_loader, device):
    model.eval()
    for x, y in data_loader:
        out = model(x.to(device, non_blocking=True))
        utils.record(out.mean())
''')
        write(os.path.join(d, "utils.py"), '''import torch


class MetricLogger:
    def __init__(self):
        self.meters = {}

    def update(self, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, torch.Tensor):
                v = v.item()
            self.meters[k] = v

    def __str__(self):
        return " ".join(f"{k}={v:.3f}" for k, v in self.meters.items())


def record(value):
    return float(value)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters())
''')
        write(os.path.join(d, "data.py"), '''import torch
from torch.utils.data import TensorDataset


def build_dataset(n):
    return TensorDataset(torch.randn(n, 64), torch.randn(n, 64))
''')


def run_once(binary, root, extra):
    """One `stoker check` process: its CPU time (user + system) and its findings."""
    proc = subprocess.Popen([binary, "check", "--no-cache", "--threads", "1", "--output-format", "json", *extra, root],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout, _ = proc.communicate()
    return resource_usage_of_last_child(), json.loads(stdout or b"[]")


_last = [0.0]


def resource_usage_of_last_child():
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = r.ru_utime + r.ru_stime
    delta = total - _last[0]
    _last[0] = total
    return delta


def median(xs):
    xs = sorted(xs)
    k = len(xs) // 2
    return xs[k] if len(xs) % 2 else (xs[k - 1] + xs[k]) / 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="+", help="one or more stoker binaries, measured interleaved in one run")
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep")
    ap.add_argument("--dir", help="measure this existing directory (a real repository) instead of a generated one")
    a = ap.parse_args()
    if a.dir:
        root = a.dir
    else:
        root = a.keep or tempfile.mkdtemp(prefix="stoker-project-bench-")
        generate(root, a.files)
    count = sum(len([f for f in fs if f.endswith(".py")]) for _, _, fs in os.walk(root))
    print(f"{count} Python files in {root}", flush=True)
    resource_usage_of_last_child()
    by_code = lambda fs: {c: sum(1 for f in fs if f["code"] == c) for c in sorted({f["code"] for f in fs})}
    # Interleaved (per repetition: each binary, file-by-file then project mode), so that the load of
    # a shared machine falls on both modes alike; each repetition gives a ratio, and the figures are
    # the medians over the repetitions.
    times = {b: {"alone": [], "project": [], "ratio": []} for b in a.binary}
    findings = {}
    for rep in range(a.repeat):
        for b in a.binary:
            alone, f_alone = run_once(b, root, ["--no-project"])
            project, f_project = run_once(b, root, [])
            t = times[b]
            t["alone"].append(alone)
            t["project"].append(project)
            t["ratio"].append(project / alone)
            findings[b] = (f_alone, f_project)
            print(f"  run {rep + 1} {b}: file-by-file {alone:.3f} s, project {project:.3f} s, ratio {project / alone:.3f}",
                  flush=True)
    for b in a.binary:
        t = times[b]
        f_alone, f_project = findings[b]
        print(f"{b}:")
        print(f"  file-by-file: {median(t['alone']):.3f} s CPU (median of {a.repeat}), {len(f_alone)} findings {by_code(f_alone)}")
        print(f"  project mode: {median(t['project']):.3f} s CPU (median of {a.repeat}), {len(f_project)} findings {by_code(f_project)}")
        print(f"  ratio project / file-by-file: {median(t['ratio']):.3f} (median; runs {', '.join(f'{r:.2f}' for r in t['ratio'])})")
    if len(a.binary) > 1:
        same = all(findings[b] == findings[a.binary[0]] for b in a.binary)
        print(f"findings identical across binaries: {same}")


if __name__ == "__main__":
    sys.exit(main())
