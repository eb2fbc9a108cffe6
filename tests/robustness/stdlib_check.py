#!/usr/bin/env python3
"""The machine's Python standard library, with `import torch` as the first line of every file
(so that the prefilter lets each file through to the full analysis), checked by ONE
`stoker check --output-format json` process: no crash (exit 0 or 1), no budget or internal-error
notice, and the output is valid JSON whose findings all name files of the copy.

    stdlib_check.py STOKER [PYTHON]

PYTHON (default /usr/bin/python3, else python3 on PATH) names the interpreter whose
sysconfig stdlib directory is copied.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def stdlib_dir(python):
    out = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    stoker = os.path.abspath(sys.argv[1])
    # Below the ctest timeout, so that a hang fails with a message rather than a kill.
    limit = float(os.environ.get("STOKER_STDLIB_TIMEOUT", "540"))
    python = sys.argv[2] if len(sys.argv) > 2 else ("/usr/bin/python3" if os.path.exists("/usr/bin/python3")
                                                     else shutil.which("python3"))
    src = stdlib_dir(python)
    tmp = tempfile.mkdtemp(prefix="stoker-stdlib-")
    try:
        copy = os.path.join(tmp, "stdlib")
        files = 0
        size = 0
        for dirpath, dirnames, filenames in os.walk(src):
            dirnames[:] = sorted(d for d in dirnames if d not in ("site-packages", "dist-packages", "__pycache__"))
            for name in sorted(filenames):
                if not name.endswith(".py"):
                    continue
                path = os.path.join(dirpath, name)
                if not os.path.isfile(path):
                    continue
                with open(path, "rb") as f:
                    data = b"import torch\n" + f.read()
                out = os.path.join(copy, os.path.relpath(path, src))
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with open(out, "wb") as f:
                    f.write(data)
                files += 1
                size += len(data)
        if files < 100:
            print(f"stdlib_check: only {files} .py files under {src}; is this a standard library?", file=sys.stderr)
            return 1
        print(f"stdlib_check: {files} files, {size / 1e6:.1f} MB from {src}")
        t0 = time.monotonic()
        try:
            proc = subprocess.run([stoker, "check", "--output-format", "json", "--exit-zero", copy],
                                  capture_output=True, cwd=tmp, timeout=limit)
        except subprocess.TimeoutExpired:
            print(f"stdlib_check: FAILED: `stoker check` did not finish in {limit:.0f} s (a hang, or a file "
                  "whose analysis grows exponentially; bench/scaling/repo_files.py times each file)", file=sys.stderr)
            return 1
        elapsed = time.monotonic() - t0
        stderr = proc.stderr.decode("utf-8", "replace")
        failures = []
        if proc.returncode < 0 or proc.returncode > 2:
            failures.append(f"exit status {proc.returncode} (a signal or a crash)")
        for line in stderr.splitlines():
            low = line.lower()
            if "budget" in low or "internal error" in low or "out of memory" in low or "bad_alloc" in low:
                failures.append("stderr: " + line)
        try:
            findings = json.loads(proc.stdout)
        except ValueError as e:
            findings = None
            failures.append(f"stdout is not valid JSON ({e}); {len(proc.stdout)} bytes, starts {proc.stdout[:200]!r}")
        if findings is not None:
            if not isinstance(findings, list):
                failures.append("the JSON output is not a list of findings")
            else:
                for d in findings:
                    name = d.get("filename", "") if isinstance(d, dict) else ""
                    if not os.path.realpath(os.path.join(tmp, name)).startswith(os.path.realpath(copy)):
                        failures.append(f"a finding names a file outside the copy: {name!r}")
                        break
        notices = [l for l in stderr.splitlines() if ": notice: " in l]
        errors = [l for l in stderr.splitlines() if ": error: " in l]
        print(f"stdlib_check: exit {proc.returncode} in {elapsed:.1f} s; "
              f"{len(findings) if isinstance(findings, list) else '?'} findings, "
              f"{len(notices)} notices, {len(errors)} errors")
        for l in (notices + errors)[:20]:
            print("  " + l)
        if proc.returncode == 2 and not errors:
            failures.append("exit status 2 without an error naming a file")
        for l in errors:
            # Unreadable files would be an environment problem; a file stoker failed on is not.
            if "analysis" in l or "crash" in l.lower():
                failures.append(l)
        if failures:
            print("stdlib_check: FAILED", file=sys.stderr)
            for f in failures[:50]:
                print("  " + f, file=sys.stderr)
            if len(stderr) and not notices:
                print(stderr[-4000:], file=sys.stderr)
            return 1
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
