#!/usr/bin/env python3
"""Whole-repository figures (docs/reliability.md, "Real repositories").

    python3 bench/scaling/repo_files.py build/stoker REPO_DIR [--json OUT] [--timeout 300]
                                        [--pybench build/stoker_pybench]

1. The whole tree in ONE `stoker check --output-format json` process: exit status, wall time,
   findings, notices; a crash, invalid JSON or a budget / internal-error notice is reported.
2. Every Python and C++/CUDA file in its own `stoker check` process: CPU time (user + system,
   from wait4) and max RSS. Files are grouped into size classes by bytes (under 1 KiB,
   1-4 KiB, 4-16 KiB, 16-64 KiB, 64-256 KiB, 256 KiB and more) per language; for each class the
   median and the slowest file, and the slowest file's ratio to the median, both of the raw
   process time and of the analysis time (process time minus that of a file holding only
   `import torch`, the start-up cost every process pays). A file killed at --timeout counts
   as taking the timeout.
3. With --pybench: every Python file's analyze() time measured in one process (stoker_pybench
   --tsv, the best of 3 runs per file, no start-up cost), grouped and compared the same way.
Exit status 1 when the whole-tree run failed, any file crashed or timed out, a budget notice
appeared, or a class's slowest file took more than 20x its median (process time; with --pybench
also in-process analysis time; classes of 5 or more files).
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

PY = (".py", ".pyi")
CXX = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".h")
SKIP_DIRS = {".git", "node_modules", "__pycache__"}
CLASSES = [(0, 1 << 10), (1 << 10, 4 << 10), (4 << 10, 16 << 10), (16 << 10, 64 << 10), (64 << 10, 256 << 10),
           (256 << 10, 1 << 62)]


def class_name(lo, hi):
    kib = lambda b: f"{b >> 10} KiB"
    return f"< {kib(hi)}" if lo == 0 else (f">= {kib(lo)}" if hi == 1 << 62 else f"{kib(lo)} - {kib(hi)}")


def run(cmd, timeout, cwd=None):
    """(cpu s, wall s, max RSS MB, exit status or None on timeout, stdout bytes, stderr text)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=cwd)
        status = None
        while True:
            pid, st, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                status = os.waitstatus_to_exitcode(st)
                break
            if time.monotonic() - t0 > timeout:
                proc.send_signal(signal.SIGKILL)
                pid, st, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.001)
        proc.returncode = status if status is not None else -9
        wall = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        return (usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, status, out.read(),
                err.read().decode("utf-8", "replace"))


def bad_lines(stderr):
    return [l for l in stderr.splitlines()
            if any(w in l.lower() for w in ("budget", "internal error", "out of memory", "bad_alloc"))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stoker")
    ap.add_argument("repo")
    ap.add_argument("--json")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--pybench", help="stoker_pybench, for in-process per-file analysis times")
    args = ap.parse_args()
    stoker = os.path.abspath(args.stoker)
    repo = os.path.abspath(args.repo)
    failures = []

    cpu, wall, rss, status, out, err = run([stoker, "check", "--output-format", "json", "--exit-zero", "."],
                                           args.timeout * 4, cwd=repo)
    try:
        findings = json.loads(out)
        n_findings = len(findings)
    except ValueError:
        n_findings = None
        failures.append("whole tree: stdout is not valid JSON")
    if status is None or status < 0 or status > 2:
        failures.append(f"whole tree: exit {status} (crash or timeout)")
    failures += ["whole tree: " + l for l in bad_lines(err)]
    notices = [l for l in err.splitlines() if ": notice: " in l]
    errors = [l for l in err.splitlines() if ": error: " in l]
    whole = {"exit": status, "wall_s": wall, "cpu_s": cpu, "max_rss_mb": rss, "findings": n_findings,
             "notices": len(notices), "errors": len(errors), "notice_lines": notices[:50], "error_lines": errors[:50]}
    print(f"whole tree: exit {status}, {wall:.1f} s wall, {cpu:.1f} s CPU, {rss:.0f} MB max RSS, "
          f"{n_findings} findings, {len(notices)} notices, {len(errors)} errors", flush=True)
    for l in (notices + errors)[:10]:
        print("  " + l)

    files = []
    for dirpath, dirnames, filenames in os.walk(repo):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            if name.endswith(PY) or name.endswith(CXX):
                files.append(os.path.join(dirpath, name))
    base_path = os.path.join(tempfile.mkdtemp(prefix="stoker-repo-"), "baseline.py")
    with open(base_path, "w") as f:
        f.write("import torch\n")
    baseline = min(run([stoker, "check", "--output-format", "json", "--exit-zero", base_path], 60)[0] for _ in range(5))
    rows = []
    t_start = time.monotonic()
    for path in files:
        cpu, wall, rss, status, out, err = run([stoker, "check", "--output-format", "json", "--exit-zero", path],
                                               args.timeout, cwd=repo)
        rel = os.path.relpath(path, repo)
        row = {"file": rel, "lang": "python" if path.endswith(PY) else "cxx", "bytes": os.path.getsize(path),
               "cpu_s": cpu if status is not None else max(cpu, args.timeout), "max_rss_mb": rss, "exit": status}
        rows.append(row)
        if status is None or status < 0 or status > 2:
            failures.append(f"{rel}: exit {status} (crash or timeout)")
        failures += [f"{rel}: {l}" for l in bad_lines(err)]
    print(f"{len(rows)} files, one process each, in {time.monotonic() - t_start:.0f} s; "
          f"start-up (a file holding `import torch`) {baseline * 1000:.1f} ms CPU", flush=True)

    classes = []
    print("| language | size class | files | median s | slowest s | slowest / median | analysis: slowest / median | slowest file |")
    print("|---|---|---|---|---|---|---|---|")
    for lang in ("python", "cxx"):
        for lo, hi in CLASSES:
            group = [r for r in rows if r["lang"] == lang and lo <= r["bytes"] < hi]
            if not group:
                continue
            med = statistics.median(r["cpu_s"] for r in group)
            slow = max(group, key=lambda r: r["cpu_s"])
            ratio = slow["cpu_s"] / med if med > 0 else float("inf")
            amed = max(statistics.median(r["cpu_s"] - baseline for r in group), 1e-4)
            aratio = max(slow["cpu_s"] - baseline, 0) / amed
            c = {"lang": lang, "class": class_name(lo, hi), "files": len(group), "median_s": med,
                 "slowest_s": slow["cpu_s"], "ratio": ratio, "analysis_ratio": aratio, "slowest_file": slow["file"]}
            classes.append(c)
            print(f"| {lang} | {c['class']} | {len(group)} | {med:.3f} | {slow['cpu_s']:.3f} | {ratio:.1f}x | "
                  f"{aratio:.1f}x | {slow['file']} |")
            if len(group) >= 5 and ratio > 20:
                failures.append(f"{lang} {c['class']}: slowest file {slow['file']} takes {ratio:.1f}x the median "
                                "process time")
    inproc = []
    if args.pybench:
        tsv = base_path + ".tsv"
        pb = subprocess.run([os.path.abspath(args.pybench), "--repeat", "3", "--top", "0", "--tsv", tsv, "."],
                            cwd=repo, capture_output=True, text=True)
        if pb.returncode != 0:
            failures.append(f"stoker_pybench exited {pb.returncode}: {pb.stderr[-500:]}")
        else:
            prows = []
            with open(tsv) as f:
                for line in f:
                    path, size, lines, parse_s, full_s, diags = line.rstrip("\n").split("\t")
                    prows.append({"file": os.path.relpath(os.path.join(repo, path), repo), "bytes": int(size),
                                  "full_s": float(full_s), "parse_s": float(parse_s)})
            print(f"in-process analyze() per file (stoker_pybench, best of 3): {len(prows)} Python files, "
                  f"{sum(r['full_s'] for r in prows):.2f} s in all")
            print("| size class | files | median ms | slowest ms | slowest / median | slowest file |")
            print("|---|---|---|---|---|---|")
            for lo, hi in CLASSES:
                group = [r for r in prows if lo <= r["bytes"] < hi]
                if not group:
                    continue
                med = statistics.median(r["full_s"] for r in group)
                slow = max(group, key=lambda r: r["full_s"])
                ratio = slow["full_s"] / med if med > 0 else float("inf")
                inproc.append({"class": class_name(lo, hi), "files": len(group), "median_s": med,
                               "slowest_s": slow["full_s"], "ratio": ratio, "slowest_file": slow["file"]})
                print(f"| {class_name(lo, hi)} | {len(group)} | {med * 1e3:.2f} | {slow['full_s'] * 1e3:.2f} | "
                      f"{ratio:.1f}x | {slow['file']} |")
                if len(group) >= 5 and ratio > 20:
                    failures.append(f"in-process {class_name(lo, hi)}: slowest file {slow['file']} takes "
                                    f"{ratio:.1f}x the median analysis time")
            top = sorted(prows, key=lambda r: -r["full_s"])[:10]
            print("slowest files in-process:")
            for r in top:
                print(f"  {r['full_s'] * 1e3:9.2f} ms  {r['bytes']:>8} B  {r['file']}")
    slowest = sorted(rows, key=lambda r: -r["cpu_s"])[:10]
    print("slowest files:")
    for r in slowest:
        print(f"  {r['cpu_s']:7.3f} s  {r['max_rss_mb']:6.0f} MB  {r['bytes']:>8} B  {r['file']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"repo": repo, "whole_tree": whole, "baseline_cpu_s": baseline, "classes": classes,
                       "in_process_classes": inproc,
                       "files": rows, "failures": failures}, f, indent=1)
    if failures:
        print("FAILURES:\n  " + "\n  ".join(failures[:50]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
