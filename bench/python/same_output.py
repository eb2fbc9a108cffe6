#!/usr/bin/env python3
"""Checks that a stoker binary reports byte-for-byte what a baseline reported (speed work must
not change results).

    bench/python/same_output.py record  --stoker BIN --out DIR [--corpus-root PREFIX] [--jobs N]
    bench/python/same_output.py compare --stoker BIN --out DIR [--corpus-root PREFIX] [--jobs N]

For every target (examples/, tests/fixtures/python, and every checkout of the Python label sets
A to H, bench/labels/python-set-{a..h}.json, wherever `score.py fetch` put them) it runs,
in the target directory,

    stoker check . --output-format json --no-cache               (project mode)
    stoker check . --output-format json --no-cache --no-project  (each file alone)

and keeps stdout, stderr and the exit status. `record` writes them under DIR (from the baseline
binary: main's build before the change); `compare` runs the new binary and prints every target
whose output differs (with the first differing line), exiting 1 if any does. A checkout that is
missing is reported and counts as a failure (fetch it first: bench/labels/README.md).

--only TEXT: only the targets whose name contains TEXT (while iterating; run them all before a
commit). --corpus-root PREFIX: the checkouts of set X are under PREFIX-X (e.g. /tmp/sf-corpus gives
/tmp/sf-corpus-a ...); default: each manifest's `corpus` directory.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SETS = ["a", "b", "c", "d", "e", "f", "g", "h"]
MODES = {"project": [], "no-project": ["--no-project"]}


def targets(corpus_root):
    out = [("examples", os.path.join(ROOT, "examples")),
           ("fixtures-python", os.path.join(ROOT, "tests", "fixtures", "python"))]
    for s in SETS:
        with open(os.path.join(ROOT, "bench", "labels", f"python-set-{s}.json")) as f:
            m = json.load(f)
        corpus = f"{corpus_root}-{s}" if corpus_root else m["corpus"]
        for r in m["repos"]:
            out.append((f"set-{s}-{r['dir']}", os.path.join(corpus, r["dir"])))
    return out


def run_one(stoker, name, path, mode):
    if not os.path.isdir(path):
        return name, mode, None
    cmd = [stoker, "check", ".", "--output-format", "json", "--no-cache"] + MODES[mode]
    p = subprocess.run(cmd, cwd=path, capture_output=True)
    return name, mode, (p.returncode, p.stdout, p.stderr)


def first_difference(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}:\n    before: {x[:300]!r}\n    after:  {y[:300]!r}"
    return f"line {min(len(la), len(lb)) + 1}: one output is longer ({len(la)} vs {len(lb)} lines)"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=["record", "compare"])
    ap.add_argument("--stoker", default=os.path.join(ROOT, "build", "stoker"))
    ap.add_argument("--out", required=True, help="directory of the baseline's outputs")
    ap.add_argument("--corpus-root", default="")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", default="", help="only the targets whose name contains this (e.g. set-c)")
    args = ap.parse_args()
    stoker = os.path.abspath(args.stoker)
    work = [(n, p, m) for n, p in targets(args.corpus_root) for m in MODES if args.only in n]
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for name, mode, res in pool.map(lambda w: run_one(stoker, *w), work):
            base = os.path.join(args.out, f"{name}.{mode}")
            if res is None:
                print(f"MISSING {name}: no checkout (fetch it: bench/labels/README.md)")
                failures += 1
                continue
            rc, out, err = res
            if args.action == "record":
                os.makedirs(args.out, exist_ok=True)
                with open(base + ".json", "wb") as f:
                    f.write(out)
                with open(base + ".stderr", "wb") as f:
                    f.write(err)
                with open(base + ".rc", "w") as f:
                    f.write(f"{rc}\n")
                print(f"recorded {name} ({mode}): exit {rc}, {len(out)} bytes")
                continue
            try:
                with open(base + ".json", "rb") as f:
                    b_out = f.read()
                with open(base + ".rc") as f:
                    b_rc = int(f.read())
            except OSError:
                print(f"NO BASELINE {name} ({mode})")
                failures += 1
                continue
            if b_out != out or b_rc != rc:
                failures += 1
                print(f"DIFFERS {name} ({mode}): exit {b_rc} -> {rc}; "
                      + first_difference(b_out.decode("utf-8", "replace"), out.decode("utf-8", "replace")))
            else:
                print(f"same    {name} ({mode}): {len(out)} bytes")
    if args.action == "compare":
        print(f"{len(work) - failures} of {len(work)} outputs identical" + ("" if not failures else f"; {failures} differ"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
