"""DD001 against a real DDP run: two gloo processes on the CPU train the loop of
ddp_accumulation.py as written and after stoker's suggested rewrite (the display-only edits
of its DD001 finding, applied from `stoker check --output-format json`), with a DDP
communication hook counting the gradient all-reduces. The rewrite must divide the count by the
accumulation factor and train to the same weights; the look-alike with `no_sync()` around the
backward only must be reported too and all-reduce as often as the original.

    ddp_no_sync_check.py STOKER_BINARY [PYTHON]
"""
import json
import os
import socket
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ACCUM = 4  # ddp_accumulation.py's ACCUM and STEPS
STEPS = 3
WORLD = 2

# Runs a program as one rank, counting the buckets DDP all-reduces (one comm hook call each).
RANK_RUNNER = r"""
import os, runpy, sys
import torch.distributed as dist
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel

count = [0]
original_init = DistributedDataParallel.__init__

def counting_hook(state, bucket):
    count[0] += 1
    return default_hooks.allreduce_hook(None, bucket)

def init(self, *args, **kwargs):
    original_init(self, *args, **kwargs)
    self.register_comm_hook(None, counting_hook)

DistributedDataParallel.__init__ = init
runpy.run_path(sys.argv[1], run_name="__main__")
print(f"allreduces {count[0]}", flush=True)
# Leave without interpreter shutdown: torch 1.13's gloo threads sometimes hang it.
os._exit(0)
"""


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def stoker_findings(stoker, path):
    out = subprocess.run([stoker, "check", "--output-format", "json", "--no-cache", path],
                         capture_output=True, text=True, timeout=60)
    if out.returncode not in (0, 1):
        fail(f"stoker exited {out.returncode} on {path}: {out.stderr}")
    return json.loads(out.stdout)


def offset(text, loc):
    """Byte offset in `text` (a str) of a 1-based row and column in code points."""
    lines = text.splitlines(keepends=True)
    return sum(len(l) for l in lines[: loc["row"] - 1]) + loc["column"] - 1


def apply_edits(text, edits):
    spans = sorted(((offset(text, e["location"]), offset(text, e["end_location"]), e["content"]) for e in edits),
                   reverse=True)
    for start, end, content in spans:
        text = text[:start] + content + text[end:]
    return text


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_ddp(python, program):
    """Starts both ranks of a program; collect() waits for them."""
    port = free_port()
    procs = []
    for rank in range(WORLD):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(WORLD), MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port), CUDA_VISIBLE_DEVICES="", OMP_NUM_THREADS="1")
        procs.append(subprocess.Popen([python, "-c", RANK_RUNNER, program], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    return program, procs


def collect(run):
    """Both ranks' (all-reduce count, weights line)."""
    program, procs = run
    results = []
    for p in procs:
        try:
            out, _ = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            outputs = []
            for q in procs:
                q.kill()
                outputs.append(q.communicate()[0])
            fail(f"{program}: the DDP run did not finish in 120 s:\n" + "\n".join(outputs))
        if p.returncode != 0:
            fail(f"{program}: a rank exited {p.returncode}:\n{out}")
        counts = [int(l.split()[1]) for l in out.splitlines() if l.startswith("allreduces ")]
        weights = [l for l in out.splitlines() if l.startswith("weights ")]
        if len(counts) != 1 or len(weights) != 1:
            fail(f"{program}: unexpected output:\n{out}")
        results.append((counts[0], weights[0]))
    return results


def dd001(findings):
    return [f for f in findings if f["code"] == "DD001"]


def main():
    stoker = sys.argv[1]
    # Debian's python3-torch installs for the system interpreter, which may not be first on PATH.
    python = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("STOKER_TEST_PYTHON", "/usr/bin/python3")
    if subprocess.run([python, "-c", "import torch.distributed as d; assert d.is_gloo_available()"]).returncode:
        fail(f"{python} cannot import torch with gloo (setup.sh installs python3-torch)")
    original = os.path.join(HERE, "ddp_accumulation.py")
    backward_only = os.path.join(HERE, "ddp_accumulation_backward_only.py")

    # stoker reports both, and offers the rewrite for the first.
    found = dd001(stoker_findings(stoker, original))
    if len(found) != 1 or not found[0]["fix"] or not found[0]["fix"]["edits"]:
        fail(f"expected one DD001 with the rewrite in ddp_accumulation.py, got {found}")
    text = open(original, encoding="utf-8").read()
    if "loss.backward()" not in text.splitlines()[found[0]["location"]["row"] - 1]:
        fail("DD001 is not at the backward() line")
    if len(dd001(stoker_findings(stoker, backward_only))) != 1:
        fail("expected one DD001 in ddp_accumulation_backward_only.py (forward outside no_sync)")

    with tempfile.TemporaryDirectory() as work:
        fixed = os.path.join(work, "ddp_accumulation_fixed.py")
        fixed_text = apply_edits(text, found[0]["fix"]["edits"])
        with open(fixed, "w", encoding="utf-8") as f:
            f.write(fixed_text)
        compile(fixed_text, fixed, "exec")  # re-parses
        if dd001(stoker_findings(stoker, fixed)):
            fail("stoker still reports DD001 after its own rewrite:\n" + fixed_text)

        # One run at a time: each picks a free port for its rendezvous, which a run started
        # meanwhile could be handed too.
        before, after, only_backward = (collect(start_ddp(python, p)) for p in (original, fixed, backward_only))

    print(f"all-reduces per rank: as written {[c for c, _ in before]}, after the rewrite {[c for c, _ in after]}, "
          f"no_sync around backward only {[c for c, _ in only_backward]} (ACCUM={ACCUM}, STEPS={STEPS})")
    for (b, wb), (a, wa), (o, _) in zip(before, after, only_backward):
        if a <= 0 or b != ACCUM * a:
            fail(f"the rewrite should divide the all-reduces by {ACCUM}: {b} before, {a} after")
        if a != STEPS:
            fail(f"expected one all-reduce per optimizer step ({STEPS}), got {a}")
        if o != b:
            fail(f"no_sync around the backward only should gain nothing: {o} against {b}")
        before_w = [float(v) for v in wb.split()[1:]]
        after_w = [float(v) for v in wa.split()[1:]]
        if len(before_w) != len(after_w) or any(abs(x - y) > 1e-5 for x, y in zip(before_w, after_w)):
            fail(f"the rewrite changed the trained weights:\n{wb}\n{wa}")
    print("ok: the DD001 rewrite divides the gradient all-reduces by the accumulation factor, same weights")


if __name__ == "__main__":
    main()
