"""Records a profiler trace with Python stacks of tests/trace/starved_steps.py on the CPU.

Usage: record_cpu_trace.py OUT.json.gz EXPECT.json [STEPS]

Debian's PyTorch (1.13, python3-torch) is built without Kineto: torch.profiler falls back to
the autograd profiler, whose export_chrome_trace writes no stacks. So this script writes the
events torch recorded (name, start, duration, thread, and with with_stack=True each event's
Python stack) in the Kineto Chrome-trace shape: `ph: "X"` events in `traceEvents`, categories
`cpu_op` / `user_annotation`, the stack in the `Call stack` argument ("file(line): function"
frames, innermost first, separated by ";").

EXPECT.json gets what the test compares stoker with, computed here from torch's events and not
from the trace file: the steps (ProfilerStep#N), and per step the host time of the outermost
`aten::item` events whose stack has read_loss's frame, and of the DataLoader
`__next__` events; and those lines.
"""
import gzip
import inspect
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import starved_steps  # noqa: E402
from expect_profile import inside  # noqa: E402


def main(out_path, expect_path, steps):
    torch.manual_seed(0)
    ready = []
    # A schedule makes torch record the ProfilerStep windows (the first step is skipped: wait=1).
    schedule = torch.profiler.schedule(wait=1, warmup=0, active=steps, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], with_stack=True,
                                schedule=schedule, on_trace_ready=lambda p: ready.append(list(p.events()))) as prof:
        starved_steps.train(steps + 2, prof)
    events = ready[0]
    trace = []
    for e in events:
        name = e.name
        cat = "user_annotation" if name.startswith("ProfilerStep") or "#" in name else "cpu_op"
        item = {"ph": "X", "cat": cat, "name": name, "pid": os.getpid(), "tid": e.thread,
                "ts": e.time_range.start, "dur": e.time_range.elapsed_us(), "args": {}}
        if e.stack:
            item["args"]["Call stack"] = ";".join(e.stack)
        trace.append(item)
    with gzip.open(out_path, "wt") as f:
        json.dump({"schemaVersion": 1, "traceName": "record_cpu_trace", "traceEvents": trace}, f)

    source_file = inspect.getsourcefile(starved_steps)
    lines, first = inspect.getsourcelines(starved_steps.read_loss)
    item_line = first + next(i for i, l in enumerate(lines) if "loss.item()" in l)
    src_lines = open(source_file).read().splitlines()
    loader_line = 1 + next(i for i, l in enumerate(src_lines) if "DataLoader(SlowImages()" in l)
    # The autograd profiler names the step windows "ProfilerStep*" (Kineto: "ProfilerStep#N").
    windows = sorted((e.time_range.start, e.time_range.end) for e in events if e.name.startswith("ProfilerStep"))
    # torch gives a frame either the line running or the function's first line.
    tags = ("starved_steps.py(%d)" % item_line, "starved_steps.py(%d)" % (item_line - 1))

    def outermost(pred):
        chosen = sorted(((e.time_range.start, e.time_range.end) for e in events if pred(e)), key=lambda x: (x[0], -x[1]))
        kept = []
        for a, b in chosen:
            # A call made from one already kept (expect_profile.inside: whole-microsecond clocks can
            # put it at the caller's end, or in the microsecond after it).
            if not any(inside(x, y, a, b) for x, y in kept):
                kept.append((a, b))
        return kept

    def per_step(intervals):
        total = 0.0
        for s, t in windows:
            for a, b in intervals:
                total += max(0.0, min(b, t) - max(a, s))
        return total / len(windows) / 1000 if windows else 0.0

    item = outermost(lambda e: e.name in ("aten::item", "aten::_local_scalar_dense") and any(t in f for f in e.stack for t in tags))
    loader = outermost(lambda e: "DataLoader" in e.name and "__next__" in e.name)
    expect = {"steps": len(windows), "item_line": item_line, "loader_line": loader_line,
              "step_ms": sum(t - s for s, t in windows) / len(windows) / 1000 if windows else 0.0,
              "item_ms_per_step": per_step(item), "loader_ms_per_step": per_step(loader)}
    with open(expect_path, "w") as f:
        json.dump(expect, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 4)
