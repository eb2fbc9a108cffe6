"""Shared helpers of the calibration scripts: timing, the model's prediction, one table row.

Each script runs one pattern in two variants (present, fixed), measures how busy the compute
stream is in each (compute-only time over the variant's wall time), and prints that next to what
`stoker impact` predicts for the measured step and load times.
"""
import argparse
import json
import os
import shutil
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def stoker_binary():
    for cand in (os.environ.get("STOKER"), os.path.join(HERE, "..", "..", "build", "stoker"), shutil.which("stoker")):
        if cand and os.path.exists(cand):
            return cand
    raise SystemExit("stoker binary not found: build it or set STOKER=/path/to/stoker")


def predict(model, gpu, workload=None, facts=None):
    cmd = [stoker_binary(), "impact", model, "--gpu", gpu]
    for k, v in (workload or {}).items():
        cmd += ["--workload", f"{k}={v}"]
    for k, v in (facts or {}).items():
        cmd += ["--fact", f"{k}={v}"]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def parser(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--gpu", default=None, help="stoker hardware profile (default: guessed from the device)")
    p.add_argument("--cpu", action="store_true", help="run on the CPU even when CUDA is available")
    return p


def device(args):
    import torch
    if not args.cpu and torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")


def guess_profile(dev):
    import torch
    if dev.type != "cuda":
        return "generic"
    name = torch.cuda.get_device_name(dev).lower()
    for key, prof in (("h200", "h200"), ("h100 pcie", "h100-pcie"), ("h100", "h100-sxm"), ("b200", "b200"),
                      ("a100-pcie", "a100-pcie"), ("a100", "a100-sxm"), ("l4", "l4"), ("4090", "rtx-4090")):
        if key in name:
            return prof
    return "generic"


def sync(dev):
    import torch
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def wall(fn, dev):
    """Seconds fn() takes, with the device drained before and after."""
    sync(dev)
    t = time.perf_counter()
    fn()
    sync(dev)
    return time.perf_counter() - t


class BusyMeter:
    """Accumulates the time spent in the compute step: CUDA events on a GPU (busy time of the
    stream), the host clock on the CPU (where the step is synchronous)."""

    def __init__(self, dev):
        self.dev, self.pairs, self.cpu_s = dev, [], 0.0

    def run(self, step):
        import torch
        if self.dev.type == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            step()
            end.record()
            self.pairs.append((start, end))
        else:
            t = time.perf_counter()
            step()
            self.cpu_s += time.perf_counter() - t

    def seconds(self):
        sync(self.dev)
        return self.cpu_s + sum(s.elapsed_time(e) for s, e in self.pairs) / 1000


def make_compute(dev, target_ms, size=512):
    """A step of matmuls taking about target_ms on `dev` (measured, then scaled)."""
    import torch
    a = torch.randn(size, size, device=dev)
    b = torch.randn(size, size, device=dev)

    def run(n):
        x = a
        for _ in range(n):
            x = torch.tanh(x @ b)
        return x

    run(2)
    per = wall(lambda: run(20), dev) / 20 * 1000
    reps = max(1, round(target_ms / max(per, 1e-6)))
    return lambda: run(reps)


def row(pattern, gpu, measured_now, measured_after, prediction):
    """Prints one line: busy fractions measured and predicted, and the gain in pp."""
    p_now = 1 - sum(prediction["idle_now"]) / 2
    p_after = 1 - sum(prediction["idle_after"]) / 2
    gain = prediction["gain_pp"]
    print(f"| {pattern} | {gpu} | {100 * measured_now:.0f}% | {100 * measured_after:.0f}% | "
          f"{100 * (measured_after - measured_now):+.0f} | {100 * p_now:.0f}% | {100 * p_after:.0f}% | "
          f"+{gain[0]:.0f}..{gain[1]:.0f} |", flush=True)


HEADER = ("| pattern | profile | busy now (measured) | busy fixed (measured) | gain pp (measured) | "
          "busy now (predicted) | busy fixed (predicted) | gain pp (predicted) |\n|---|---|---|---|---|---|---|---|")


def needs_cuda(pattern, dev):
    """The GPU-side patterns cannot be shown on a CPU: say so in the table and stop."""
    if dev.type != "cuda":
        print(f"| {pattern} | - | skipped: needs CUDA | | | | | |", flush=True)
        raise SystemExit(0)


def prefetching_loop(batches, dev, step, meter, non_blocking=True):
    """The fixed variant of the copy patterns: the next batch is copied on a side stream while
    the current one is computed on the default stream."""
    import torch
    copy_stream = torch.cuda.Stream(dev)
    with torch.cuda.stream(copy_stream):
        nxt = batches[0].to(dev, non_blocking=non_blocking)
    for i in range(len(batches)):
        torch.cuda.current_stream(dev).wait_stream(copy_stream)
        cur = nxt
        cur.record_stream(torch.cuda.current_stream(dev))
        if i + 1 < len(batches):
            with torch.cuda.stream(copy_stream):
                nxt = batches[i + 1].to(dev, non_blocking=non_blocking)
        meter.run(step)


def profiled_busy(dev, fn):
    """(kernel seconds, wall seconds) of fn(): kernel time summed by the PyTorch profiler, so gaps
    inside a step (waiting for the host to launch the next kernel) count as idle."""
    from torch.profiler import ProfilerActivity, profile
    sync(dev)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        t = time.perf_counter()
        fn()
        sync(dev)
        elapsed = time.perf_counter() - t
    return sum(e.self_cuda_time_total for e in prof.key_averages()) / 1e6, elapsed
