#!/usr/bin/env python3
"""The mutation test (issue 9): every single-character deletion, an insertion of each of
`(`, `:`, a newline and `x` at every offset, and every truncation of the shipped examples,
analyzed in memory by ONE stoker_mutation process (no crash, no hang, every finding inside its
text); then a sample of those variants, written to a directory, checked by the real binary in
one `stoker check --output-format json` process (no crash, valid JSON, no budget or internal
error notice, every sampled file accounted for).

    mutation_check.py STOKER_MUTATION STOKER EXAMPLES_DIR [--stride N] [--cxx-stride N]

--stride N / --cxx-stride N: mutate every N-th offset of the Python / C++ files (default 1).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    driver, stoker, examples = (os.path.abspath(p) for p in sys.argv[1:4])
    stride = sys.argv[sys.argv.index("--stride") + 1] if "--stride" in sys.argv else "1"
    cxx_stride = sys.argv[sys.argv.index("--cxx-stride") + 1] if "--cxx-stride" in sys.argv else "1"
    inputs = []
    for dirpath, dirnames, filenames in os.walk(examples):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith((".py", ".cu", ".cpp", ".cc", ".cuh", ".h")):
                inputs.append(os.path.join(dirpath, name))
    if not any(p.endswith(".py") for p in inputs):
        print(f"mutation_check: no Python examples under {examples}", file=sys.stderr)
        return 1
    tmp = tempfile.mkdtemp(prefix="stoker-mutation-")
    try:
        sample = os.path.join(tmp, "sample")
        os.makedirs(sample)
        env = dict(os.environ, STOKER_MUTATION_CRASH=os.path.join(tmp, "crash"))
        proc = subprocess.run([driver, "--stride", stride, "--cxx-stride", cxx_stride, "--sample-dir", sample, "--sample-every", "97"]
                              + inputs, capture_output=True, text=True, env=env)
        sys.stdout.write(proc.stdout)
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr[-6000:])
            for name in os.listdir(tmp):
                if name.startswith("crash"):
                    with open(os.path.join(tmp, name), "rb") as f:
                        data = f.read()
                    print(f"mutation_check: the variant that failed ({len(data)} bytes):\n"
                          + data.decode("utf-8", "replace"), file=sys.stderr)
            print(f"mutation_check: FAILED: stoker_mutation exited {proc.returncode}", file=sys.stderr)
            return 1
        sampled = sorted(os.listdir(sample))
        run = subprocess.run([stoker, "check", "--output-format", "json", "--exit-zero", sample],
                             capture_output=True, cwd=tmp)
        stderr = run.stderr.decode("utf-8", "replace")
        failures = []
        if run.returncode < 0 or run.returncode > 2:
            failures.append(f"stoker check exited {run.returncode} (a signal or a crash)")
        try:
            findings = json.loads(run.stdout)
            if not isinstance(findings, list):
                failures.append("the JSON output is not a list")
        except ValueError as e:
            failures.append(f"stdout is not valid JSON: {e}")
        for line in stderr.splitlines():
            low = line.lower()
            if "budget" in low or "internal error" in low:
                failures.append(line)
        notices = sum(1 for l in stderr.splitlines() if ": notice: " in l)
        print(f"mutation_check: {len(sampled)} sampled variants checked by `stoker check` in one process: "
              f"exit {run.returncode}, {notices} notices")
        if failures:
            print("mutation_check: FAILED\n  " + "\n  ".join(failures[:40]), file=sys.stderr)
            sys.stderr.write(stderr[-4000:])
            return 1
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
