#!/usr/bin/env python3
"""PyTorch's runtime anti-pattern matcher as an oracle for stoker's static GU rules.

Runs every cases/*.py on the CPU under torch.profiler (with stacks and shapes), applies the
patterns of torch/profiler/_pattern_matcher.py that have a static counterpart, and maps each
matched event to the line of the case file it was called from. Then runs `stoker check` on the
same file (target PyTorch = the installed one) and requires, per pattern:
  - GradNotSetToNone        <-> GU011: the same set of lines (the zero_grad call);
  - OptimizerSingleTensor   <-> GU009: the same set of lines (the optimizer's step() calls,
                                       which stoker gives as related locations of the finding);
  - Conv2dBiasFollowedByBatchNorm2d <-> GU008: the same set of lines (the forward's call of the
                                       batch norm, stoker's related location);
  - SynchronizedDataLoader  <-> DL001: reported in the same files (the matcher points at the
                                       loop, stoker at the DataLoader).
A pattern the matcher does not report must not be reported by stoker either.

  pattern_matcher_check.py STOKER_BINARY [CASES_DIR]
"""
import json
import os
import subprocess
import sys
import types
import warnings

warnings.filterwarnings("ignore")
os.environ["CUDA_VISIBLE_DEVICES"] = ""

try:
    import torch
    from torch.profiler import _pattern_matcher as pm
    from torch.profiler import profile, ProfilerActivity
except ImportError as e:
    print(f"FAIL: cannot import torch's pattern matcher ({e}); setup.sh installs python3-torch")
    sys.exit(1)

# pattern -> (matcher class, stoker code, how lines compare)
#   primary: the matcher's lines are exactly the findings' own lines;
#   related: every matcher line is a related line of some finding, and every finding has a
#            related line the matcher reported;
#   file:    both report in the file, or neither.
PATTERNS = {
    "GradNotSetToNone": ("GradNotSetToNonePattern", "GU011", "primary"),
    "OptimizerSingleTensor": ("OptimizerSingleTensorPattern", "GU009", "related"),
    "Conv2dBiasFollowedByBatchNorm2d": ("Conv2dBiasFollowedByBatchNorm2dPattern", "GU008", "related"),
    "SynchronizedDataLoader": ("SynchronizedDataLoaderPattern", "DL001", "file"),
}


def case_line(event, path):
    """The line of `path` the event was (transitively) called from, or None."""
    e = event
    while e is not None:
        extra = getattr(e, "extra_fields", None)
        caller = getattr(extra, "caller", None)
        # The tracer shortens file names by the sys.path entry they are under.
        if caller is not None and (caller.file_name == path or path.endswith(os.sep + caller.file_name)):
            return caller.line_number
        e = e.parent
    return None


def run_matcher(path):
    # The script's code objects must outlive the matching: the profiler's event tree refers to
    # their names (runpy would free the module's code once it has run), and so is every other
    # module's (see the warm-up run below).
    with open(path) as f:
        code = compile(f.read(), path, "exec")
    # A first run without the profiler imports every module the script needs: a module first
    # imported during the profiled run has its top-level code freed after the import, and
    # PyTorch 1.13's tracer then holds a dangling name for that `<module>` event.
    exec(code, {"__name__": "__main__", "__file__": path})
    namespace = {"__name__": "__main__", "__file__": path}
    with profile(activities=[ProfilerActivity.CPU], with_stack=True, record_shapes=True) as prof:
        exec(code, namespace)
    keep_alive = (code, namespace)
    # One event tree for all patterns: each Pattern() would build its own, and in PyTorch 1.13
    # building it again leaves the earlier trees' event names dangling (undecodable bytes).
    tree = prof.profiler.kineto_results.experimental_event_tree()
    for event in pm.traverse_dfs(tree):
        event.name.encode()  # fails loudly (UnicodeDecodeError) rather than matching garbage
    shared = types.SimpleNamespace(
        profiler=types.SimpleNamespace(kineto_results=types.SimpleNamespace(experimental_event_tree=lambda: tree)),
        record_shapes=prof.record_shapes, with_stack=prof.with_stack)
    out = {}
    for name, (cls, _, _) in PATTERNS.items():
        pattern = getattr(pm, cls)(shared)
        lines = set()
        for event in pattern.matched_events():
            line = case_line(event, path)
            if line is not None:
                lines.add(line)
        out[name] = lines
    del keep_alive
    return out


def run_stoker(stoker, path):
    version = ".".join(torch.__version__.split(".")[:2])
    r = subprocess.run([stoker, "check", "--no-cache", "--output-format", "json", "--target-torch-version", version,
                        path], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        print(f"FAIL: stoker exited {r.returncode} on {path}: {r.stderr}")
        sys.exit(1)
    findings = {}
    for d in json.loads(r.stdout):
        related = {rel["location"]["row"] for rel in d.get("related") or [] if "location" in rel}
        findings.setdefault(d["code"], []).append((d["location"]["row"], related))
    return findings


def agrees(how, want, found):
    if not want or not found:
        return not want and not found
    if how == "primary":
        return want == {row for row, _ in found}
    if how == "related":
        related = set().union(*(rel for _, rel in found))
        return want <= related and all(rel & want for _, rel in found)
    return True


def main():
    stoker = sys.argv[1]
    cases = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
    failed = 0
    compared = {name: 0 for name in PATTERNS}
    for name in sorted(os.listdir(cases)):
        if not name.endswith(".py"):
            continue
        path = os.path.realpath(os.path.join(cases, name))
        # A fresh interpreter per case (profile_case.py), so that one case's imports, profiler
        # state and loader workers cannot leak into the next; run_matcher checks that every
        # event name decodes and fails loudly otherwise.
        driver = os.path.join(os.path.dirname(os.path.abspath(__file__)), "profile_case.py")
        r = subprocess.run([sys.executable, driver, path], capture_output=True, text=True, cwd=cases)
        if r.returncode != 0:
            print(f"FAIL {name}: the profiled run failed:\n{r.stdout}{r.stderr}")
            failed += 1
            continue
        runtime = {k: set(v) for k, v in json.loads(r.stdout.strip().splitlines()[-1]).items()}
        static = run_stoker(stoker, path)
        for pattern, (_, code, how) in PATTERNS.items():
            want = runtime[pattern]
            found = static.get(code, [])
            ok = agrees(how, want, found)
            if want:
                compared[pattern] += 1
            shown = sorted((row, sorted(rel)) for row, rel in found)
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {pattern}: matcher lines {sorted(want)}; "
                  f"stoker {code} (line, related) {shown}")
            failed += not ok
    for pattern, n in compared.items():
        if n == 0:
            print(f"FAIL: no case makes the matcher report {pattern}: the comparison would prove nothing")
            failed += 1
    print("PASS" if not failed else f"{failed} mismatches")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
