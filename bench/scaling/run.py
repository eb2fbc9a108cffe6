#!/usr/bin/env python3
"""Time and memory of `stoker check` against input size, per shape (bench/scaling/README.md).

    python3 bench/scaling/run.py build/stoker [--shape NAME]... [--repeat 3] [--timeout 120]
                                 [--keep DIR] [--json OUT]

For every shape of shapes.py and each of its sizes, the generated file is written to a temporary
directory and checked by one `stoker check --output-format json` process; its CPU time
(user + system) and maximum resident set size come from wait4(2). The minimum time over
--repeat runs is kept. A baseline (a file holding only `import torch`) is subtracted before
fitting: the fitted exponent is the least-squares slope of log(time - baseline) against
log(size) over the sizes, and the last-doubling exponent is log2 of the ratio of the two
largest sizes' times. Memory is fitted the same way on (max RSS - baseline RSS). A run past
--timeout is killed and ends that shape's series (later sizes are not tried).
Any notice or error other than a syntax error (a budget notice, an internal error) is reported.
"""
import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shapes  # noqa: E402


def measure(stoker, path, timeout):
    """(cpu seconds, max RSS in MB, exit status or None on timeout, stderr) of one check."""
    with tempfile.TemporaryFile() as err, open(os.devnull, "wb") as out:
        proc = subprocess.Popen([stoker, "check", "--output-format", "json", "--exit-zero", path],
                                stdout=out, stderr=err)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.send_signal(signal.SIGKILL)
                pid, status, usage = os.wait4(proc.pid, 0)
                proc.returncode = -9
                return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, None, ""
            time.sleep(0.002)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
        return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode, text


def slope(xs, ys):
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stoker")
    ap.add_argument("--shape", action="append", help="run only these shapes (repeatable)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--keep", help="write the generated files here instead of a temporary directory")
    ap.add_argument("--json", help="write the measurements here as JSON")
    args = ap.parse_args()
    names = args.shape or list(shapes.SHAPES)
    for n in names:
        if n not in shapes.SHAPES:
            ap.error(f"unknown shape {n}; known: {', '.join(shapes.SHAPES)}")
    tmp = args.keep or tempfile.mkdtemp(prefix="stoker-scaling-")
    os.makedirs(tmp, exist_ok=True)
    base_path = os.path.join(tmp, "baseline.py")
    with open(base_path, "w") as f:
        f.write("import torch\n")
    base_t = min(measure(args.stoker, base_path, args.timeout)[0] for _ in range(max(3, args.repeat)))
    base_rss = measure(args.stoker, base_path, args.timeout)[1]
    print(f"baseline (`import torch` only): {base_t * 1000:.1f} ms CPU, {base_rss:.1f} MB max RSS", flush=True)
    results = []
    for name in names:
        gen, sizes, unit = shapes.SHAPES[name]
        rows = []
        for n in sizes:
            text = gen(n)
            path = os.path.join(tmp, f"{name}_{n}.py")
            with open(path, "w") as f:
                f.write(text)
            best, rss, status, notes = None, 0.0, 0, []
            for _ in range(args.repeat):
                t, r, status, stderr = measure(args.stoker, path, args.timeout)
                rss = max(rss, r)
                if status is None:
                    best = None
                    notes.append(f"killed after {args.timeout:.0f} s")
                    break
                best = t if best is None else min(best, t)
                if status not in (0, 1):
                    notes.append(f"exit {status}")
                for line in stderr.splitlines():
                    for tag in (": notice: ", ": error: "):
                        if tag in line and "syntax error" not in line:
                            notes.append(line.split(tag, 1)[1])
                if status not in (0, 1) or notes:
                    break
            row = {"size": n, "lines": text.count("\n"), "bytes": len(text), "cpu_s": best, "max_rss_mb": rss,
                   "notes": sorted(set(notes))}
            rows.append(row)
            shown = "timeout" if best is None else f"{best:.3f} s"
            print(f"{name:26} {n:>7} {unit:13} {row['lines']:>7} lines  {shown:>10}  {rss:7.1f} MB"
                  + (f"  [{'; '.join(row['notes'])}]" if row["notes"] else ""), flush=True)
            if best is None or row["notes"]:
                break
        # A size cut short by the budget (or failing otherwise) is left out of the fit.
        done = [r for r in rows if r["cpu_s"] is not None and not r["notes"]]
        xs = [r["size"] for r in done]
        t_exp = slope(xs, [r["cpu_s"] - base_t for r in done])
        m_exp = slope(xs, [r["max_rss_mb"] - base_rss for r in done])
        last = None
        if len(done) >= 2 and done[-2]["cpu_s"] - base_t > 0 and done[-1]["cpu_s"] - base_t > 0:
            last = math.log(max(done[-1]["cpu_s"] - base_t, 1e-9) / (done[-2]["cpu_s"] - base_t)) / math.log(
                done[-1]["size"] / done[-2]["size"])
        # A series that ran into the timeout: the step to the killed size took at least this long.
        if len(rows) > len(done) and rows[len(done)]["cpu_s"] is None and done and done[-1]["cpu_s"] - base_t > 0:
            bound = math.log((args.timeout - base_t) / (done[-1]["cpu_s"] - base_t)) / math.log(
                rows[len(done)]["size"] / done[-1]["size"])
            last = max(last or 0, bound)
            rows[len(done)]["notes"].append(f"last step exponent at least {bound:.2f}")
        results.append({"shape": name, "unit": unit, "rows": rows, "time_exponent": t_exp,
                        "last_doubling_exponent": last, "memory_exponent": m_exp})
        fmt = lambda v: "n/a" if v is None else f"{v:.2f}"
        print(f"{name:26} time exponent {fmt(t_exp)} (last step {fmt(last)}), memory exponent {fmt(m_exp)}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"baseline_cpu_s": base_t, "baseline_rss_mb": base_rss, "shapes": results}, f, indent=1)
    print()
    print("| shape | size unit | sizes | lines (largest) | CPU s per size | max RSS MB (largest) | time exp. (fit / last step) | memory exp. | notes |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        rows = r["rows"]
        times = " / ".join("timeout" if x["cpu_s"] is None else f"{x['cpu_s']:.3f}" for x in rows)
        fmt = lambda v: "n/a" if v is None else f"{v:.2f}"
        notes = sorted({n for x in rows for n in x["notes"]})
        print(f"| {r['shape']} | {r['unit']} | {', '.join(str(x['size']) for x in rows)} | {rows[-1]['lines']} | {times} | "
              f"{rows[-1]['max_rss_mb']:.0f} | {fmt(r['time_exponent'])} / {fmt(r['last_doubling_exponent'])} | "
              f"{fmt(r['memory_exponent'])} | {'; '.join(notes)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
