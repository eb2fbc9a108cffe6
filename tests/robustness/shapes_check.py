#!/usr/bin/env python3
"""Complexity guard (not a timing assertion): every stress shape of bench/scaling/shapes.py at
its second-largest benchmark size (the examples replicated 100 times), in one temporary
directory, checked by ONE `stoker check --output-format json` process. No crash, no notice of
any kind (the shapes are valid Python), valid JSON naming only the generated files. A shape
whose analysis is super-linear runs into the ctest timeout instead of making every run slow;
bench/scaling/run.py measures the exponents.

    shapes_check.py STOKER
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "scaling"))
import shapes  # noqa: E402


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    stoker = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="stoker-shapes-")
    try:
        names = []
        for name, (gen, sizes, unit) in shapes.SHAPES.items():
            n = sizes[-2]
            fname = f"{name}_{n}.py"
            with open(os.path.join(tmp, fname), "w") as f:
                f.write(gen(n))
            names.append(fname)
        t0 = time.monotonic()
        proc = subprocess.run([stoker, "check", "--output-format", "json", "--exit-zero", "."], cwd=tmp,
                              capture_output=True)
        elapsed = time.monotonic() - t0
        stderr = proc.stderr.decode("utf-8", "replace")
        failures = []
        if proc.returncode != 0:
            failures.append(f"exit status {proc.returncode}")
        failures += [l for l in stderr.splitlines() if l.strip()]
        try:
            findings = json.loads(proc.stdout)
            named = {os.path.basename(d["filename"]) for d in findings}
            if not named <= set(names):
                failures.append(f"findings name other files: {sorted(named - set(names))[:5]}")
            # Every shape ends in code the rules report on; a shape without findings lost them.
            silent = [n for n in names if n not in named]
            if silent:
                failures.append(f"no findings in {silent}")
        except (ValueError, KeyError, TypeError) as e:
            failures.append(f"stdout is not the JSON list of findings: {e}")
        print(f"shapes_check: {len(names)} shapes in one process: exit {proc.returncode} in {elapsed:.1f} s")
        if failures:
            print("shapes_check: FAILED\n  " + "\n  ".join(failures[:40]), file=sys.stderr)
            return 1
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
