#!/usr/bin/env python3
"""Precision and recall of a stoker binary against hand labels on real C++/CUDA code.

    score_cxx.py fetch --manifest bench/labels/cxx-set-1.json [--corpus DIR] [--mirror-root DIR]
    score_cxx.py score --stoker build/stoker --manifest bench/labels/cxx-set-1.json \
                       [--labels bench/labels/cxx-set-1.tsv] [--corpus DIR] [--json OUT] [-v]

The same labels, figures and output as score.py (whose label format, `fetch` and scoring this
reuses), with two differences that C++ needs:

- stoker runs on the manifest's counted files only, not on the whole checkout (a C++ repository
  holds many programs and build trees; a counted header is analyzed through the translation units
  that include it and also alone, as `stoker check` does with a header named on its command line);
- each repository entry may give `extra_args` (for every counted file) and `file_args` (per
  counted file): clang arguments, `{checkout}` standing for the repository's checkout, passed as
  the configuration's `[cxx] extra-args` through `--config` (header-free mode, the set-up that
  docs/cxx-real-code.md describes: no compile database, no toolkit). Files with the same
  arguments run in one `stoker check`.

With -v, the clang error counts stoker reports for each counted file are printed too.
`--cuda-path DIR` (score only) passes stoker's `--cuda-path`: the counted `.cu` files are parsed
against that toolkit's headers (toolkit mode) instead of header-free mode's shims.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import score  # noqa: E402  (score.py, next to this file)

_REPOS = {}  # checkout directory -> manifest entry, filled before score.cmd_score runs
_EXTRA = []  # arguments added to every `stoker check` (--cuda-path DIR)


def _groups(checkout, r):
    """Counted files grouped by their clang arguments (with {checkout} substituted)."""
    base = r.get("extra_args", [])
    per_file = r.get("file_args", {})
    stray = sorted(set(per_file) - set(r["files"]))
    if stray:
        sys.exit(f"score_cxx: {r['name']}: file_args for files that are not counted: {stray}")
    groups = {}
    for path in r["files"]:
        args = tuple(a.replace("{checkout}", checkout) for a in base + per_file.get(path, []))
        groups.setdefault(args, []).append(path)
    return groups


def _config(args, tmpdir):
    fd, path = tempfile.mkstemp(prefix="stoker-", suffix=".toml", dir=tmpdir)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("[cxx]\nextra-args = [" + ", ".join(json.dumps(a) for a in args) + "]\n")
    return path


def run_stoker_files(stoker, checkout, verbose):
    r = _REPOS[os.path.normpath(checkout)]
    out = []
    with tempfile.TemporaryDirectory(prefix="score-cxx-") as tmp:
        for args, files in _groups(checkout, r).items():
            cmd = [stoker, "check", *files, "--output-format", "json", "--no-cache",
                   "--config", _config(args, tmp), *_EXTRA]
            p = subprocess.run(cmd, cwd=checkout, capture_output=True, text=True)
            if p.returncode not in (0, 1):
                print(f"score_cxx: warning: `{' '.join(cmd)}` in {checkout} exited {p.returncode}:\n"
                      f"{p.stderr.strip()[:2000]}", file=sys.stderr)
            if verbose:
                for line in p.stderr.splitlines():
                    if re.search(r"clang reported \d+ error", line):
                        print(f"  {r['name']}: {line.strip()}", file=sys.stderr)
            try:
                findings = json.loads(p.stdout or "[]")
            except json.JSONDecodeError as e:
                sys.exit(f"score_cxx: stoker's JSON output for {checkout} does not parse: {e}")
            for f in findings:
                path = os.path.normpath(os.path.relpath(os.path.join(checkout, f["filename"]), checkout))
                out.append({"path": path.replace(os.sep, "/"), "line": int(f["location"]["row"]),
                            "code": f["code"], "severity": f.get("severity", ""),
                            "message": f.get("message", "")})
    return out


def analyzed_counted_files(stoker, checkout):
    r = _REPOS[os.path.normpath(checkout)]
    p = subprocess.run([stoker, "check", *r["files"], "--show-files"], cwd=checkout,
                       capture_output=True, text=True)
    return {os.path.normpath(line.strip()).replace(os.sep, "/") for line in p.stdout.splitlines() if line.strip()}


def main():
    # The command line is score.py's; only `score` needs the manifest's repositories first.
    if "--cuda-path" in sys.argv:
        i = sys.argv.index("--cuda-path")
        if i + 1 >= len(sys.argv):
            sys.exit("score_cxx: --cuda-path needs a directory")
        _EXTRA.extend(["--cuda-path", sys.argv[i + 1]])
        del sys.argv[i:i + 2]
    if len(sys.argv) > 1 and sys.argv[1] == "score":
        mi = sys.argv.index("--manifest") if "--manifest" in sys.argv else -1
        if mi < 0 or mi + 1 >= len(sys.argv):
            sys.exit("score_cxx: score needs --manifest")
        manifest = score.load_manifest(sys.argv[mi + 1])
        ci = sys.argv.index("--corpus") if "--corpus" in sys.argv else -1
        corpus = sys.argv[ci + 1] if 0 <= ci < len(sys.argv) - 1 else manifest["corpus"]
        for r in manifest["repos"]:
            _REPOS[os.path.normpath(os.path.join(corpus, r["dir"]))] = r
        score.run_stoker = run_stoker_files
        score.analyzed_files = analyzed_counted_files
    return score.main()


if __name__ == "__main__":
    sys.exit(main())
