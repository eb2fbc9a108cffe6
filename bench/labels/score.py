#!/usr/bin/env python3
"""Precision and recall of a stoker binary against hand labels on real training code.

    score.py fetch --manifest bench/labels/python-set-a.json [--corpus DIR] [--mirror-root DIR]
    score.py score --stoker build/stoker --manifest bench/labels/python-set-a.json \
                   [--labels bench/labels/python-set-a.tsv] [--families GU,DD] [--corpus DIR] [--json OUT] [-v]

`fetch` puts every repository of the manifest, at its recorded commit, under the corpus
directory (default: the manifest's `corpus`, e.g. /tmp/corpus): from a mirror (bare, or a clone whose .git is used)
(`<mirror-root>/<owner>+<name>/repo`, what the session's fetch tool leaves) when one exists, else
with `git clone` from GitHub. The code is never copied into this repository.

`score` runs `stoker check <checkout> --output-format json --no-cache` on each repository as a
whole checkout, keeps the findings in the manifest's counted files whose code belongs to a scored
family (`codes`, or `--families` to score other families of the same checkouts against another
labels file), and matches them to the labels by (repo, path, line, code):

    precision = reported findings labelled must or may / all reported findings
    recall    = must labels reported / all must labels

A reported finding without a label is printed as UNLABELED and counted as a false positive until
someone labels it. The labels' `reported` column records what the baseline binary did when the
labels were written (`-` before any run); the scorer prints each label whose state changed (NEW / LOST).
Exit status: 0 when the run completed, 2 when a checkout or the binary is missing, 3 when stoker
exited with an error or crashed on a checkout (the figures are printed but are not a measurement).
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
from collections import Counter, defaultdict

CORRECT = {"must", "may"}
LABELS = {"must", "may", "fp"}
COLUMNS = ["repo", "commit", "path", "line", "code", "label", "reported", "class", "note"]


def load_manifest(path):
    with open(path, encoding="utf-8") as f:
        m = json.load(f)
    for r in m["repos"]:
        for k in ("name", "repo", "commit", "dir", "files"):
            if k not in r:
                sys.exit(f"score: manifest {path}: repository entry without `{k}`: {r}")
    return m


def load_labels(path):
    labels = []
    if not os.path.exists(path):
        print(f"score: no labels at {path}: every finding is UNLABELED (a list to label)", file=sys.stderr)
        return labels
    with open(path, encoding="utf-8", newline="") as f:
        rows = csv.reader((line for line in f if not line.startswith("#")), delimiter="\t")
        header = next(rows)
        if header != COLUMNS:
            sys.exit(f"score: {path}: header must be {COLUMNS}, is {header}")
        for n, row in enumerate(rows, start=2):
            if not row:
                continue
            if len(row) != len(COLUMNS):
                sys.exit(f"score: {path}: row {n} has {len(row)} columns, not {len(COLUMNS)}")
            d = dict(zip(COLUMNS, row))
            if d["label"] not in LABELS:
                sys.exit(f"score: {path}: row {n}: label `{d['label']}` is not one of {sorted(LABELS)}")
            if d["reported"] not in ("yes", "no", "-"):
                sys.exit(f"score: {path}: row {n}: reported must be yes, no or - (no run recorded yet)")
            d["line"] = int(d["line"])
            labels.append(d)
    keys = Counter((d["repo"], d["path"], d["line"], d["code"]) for d in labels)
    dup = [k for k, c in keys.items() if c > 1]
    if dup:
        sys.exit(f"score: {path}: duplicate labels for {dup}")
    return labels


def family_scored(code, families):
    return any(code.startswith(f) for f in families)


def analyzed_files(stoker, checkout):
    p = subprocess.run([stoker, "check", ".", "--show-files"], cwd=checkout, capture_output=True, text=True)
    return {os.path.normpath(os.path.relpath(os.path.join(checkout, line.strip()), checkout)).replace(os.sep, "/")
            for line in p.stdout.splitlines() if line.strip()}


FAILED_RUNS = []


def run_stoker(stoker, checkout, verbose):
    cmd = [stoker, "check", ".", "--output-format", "json", "--no-cache"]
    p = subprocess.run(cmd, cwd=checkout, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        # A crash or an error exit: its findings are not a measurement. Scored on, but the run
        # ends with status 3 so that no figure taken from it passes for a clean one.
        FAILED_RUNS.append((checkout, p.returncode))
        print(f"score: error: `{' '.join(cmd)}` in {checkout} exited {p.returncode}:\n"
              f"{p.stderr.strip()[:2000]}", file=sys.stderr)
    elif verbose and p.stderr.strip():
        print(p.stderr.strip()[:2000], file=sys.stderr)
    try:
        findings = json.loads(p.stdout or "[]")
    except json.JSONDecodeError as e:
        sys.exit(f"score: stoker's JSON output for {checkout} does not parse: {e}")
    out = []
    for f in findings:
        path = os.path.normpath(os.path.relpath(os.path.join(checkout, f["filename"]), checkout))
        out.append({"path": path.replace(os.sep, "/"), "line": int(f["location"]["row"]),
                    "code": f["code"], "severity": f.get("severity", ""),
                    "message": f.get("message", "")})
    return out


def cmd_fetch(args):
    m = load_manifest(args.manifest)
    corpus = args.corpus or m["corpus"]
    os.makedirs(corpus, exist_ok=True)
    for r in m["repos"]:
        dest = os.path.join(corpus, r["dir"])
        stamp = os.path.join(dest, ".stoker-corpus-commit")
        if os.path.exists(stamp) and open(stamp).read().strip() == r["commit"]:
            print(f"{r['repo']}: {dest} already at {r['commit'][:12]}")
            continue
        if os.path.exists(dest) and os.listdir(dest):
            sys.exit(f"score: {dest} exists and is not a checkout made by `score.py fetch`; move it away")
        os.makedirs(dest, exist_ok=True)
        mirror = os.path.join(args.mirror_root, r["repo"].replace("/", "+"), "repo")
        if os.path.isdir(os.path.join(mirror, ".git")):
            mirror = os.path.join(mirror, ".git")  # some mirrors are non-bare clones
        if os.path.isdir(mirror):
            # Blob by blob: a mirror may lack its largest files, which `git archive` refuses.
            tree = subprocess.run(["git", "--git-dir", mirror, "ls-tree", "-r", "-z", r["commit"]],
                                  check=True, capture_output=True).stdout.split(b"\0")
            for entry in filter(None, tree):
                meta, path = entry.split(b"\t", 1)
                _, kind, sha = meta.split()
                if kind != b"blob":
                    continue
                blob = subprocess.run(["git", "--git-dir", mirror, "cat-file", "blob", sha],
                                      capture_output=True)
                if blob.returncode != 0:
                    continue
                target = os.path.join(dest, path.decode())
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as f:
                    f.write(blob.stdout)
            how = f"from {mirror}"
        else:
            subprocess.run(["git", "clone", "--quiet", f"https://github.com/{r['repo']}", dest], check=True)
            subprocess.run(["git", "-C", dest, "checkout", "--quiet", r["commit"]], check=True)
            how = "cloned from GitHub"
        with open(stamp, "w") as f:
            f.write(r["commit"] + "\n")
        missing = [p for p in r["files"] if not os.path.isfile(os.path.join(dest, p))]
        print(f"{r['repo']}: {dest} at {r['commit'][:12]} ({how})"
              + (f"; MISSING counted files {missing}" if missing else ""))
    return 0


def record_reported(path, reported_keys, families):
    """Set each row's `reported` to yes/no by this run, rows of other families left as they are;
    comments, order and every other column kept byte for byte."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    header_seen = False
    for i, line in enumerate(lines):
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if not header_seen:
            header_seen = True
            if cols[:len(COLUMNS)] != COLUMNS:
                sys.exit(f"score: {path}: unexpected header")
            continue
        if not family_scored(cols[4], families):
            continue
        cols[6] = "yes" if (cols[0], cols[2], int(cols[3]), cols[4]) in reported_keys else "no"
        lines[i] = "\t".join(cols)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    os.replace(tmp, path)


def cmd_score(args):
    m = load_manifest(args.manifest)
    corpus = args.corpus or m["corpus"]
    families = m.get("codes", ["DL", "TX", "SY", "BS"])
    if args.families:
        families = [f.strip() for f in args.families.split(",") if f.strip()]
    labels = load_labels(args.labels or os.path.splitext(args.manifest)[0] + ".tsv")
    # Labels of other families do not count (a GU/DD labels file scored with --families GU).
    labels = [d for d in labels if family_scored(d["code"], families)]
    # The binary runs inside each checkout: a relative path (build/stoker) is taken from here.
    args.stoker = os.path.abspath(args.stoker) if os.sep in args.stoker else args.stoker
    if not os.access(args.stoker, os.X_OK) and not shutil.which(args.stoker):
        print(f"score: {args.stoker} is not an executable", file=sys.stderr)
        return 2
    by_key = {(d["repo"], d["path"], d["line"], d["code"]): d for d in labels}
    names = {r["name"] for r in m["repos"]}
    stray = [d for d in labels if d["repo"] not in names]
    if stray:
        sys.exit(f"score: labels for repositories not in the manifest: {sorted({d['repo'] for d in stray})}")

    reported_keys = set()
    counts = Counter()          # label -> reported findings with that label
    per_class_fp = Counter()
    unlabeled, outside, fps = [], Counter(), []
    per_repo = defaultdict(Counter)
    for r in m["repos"]:
        checkout = os.path.join(corpus, r["dir"])
        if not os.path.isdir(checkout):
            print(f"score: {checkout} is missing; run `score.py fetch --manifest {args.manifest}`",
                  file=sys.stderr)
            return 2
        counted = set(r["files"])
        unanalyzed = sorted(counted - analyzed_files(args.stoker, checkout))
        if unanalyzed:
            print(f"score: warning: {r['name']}: counted files stoker does not analyze: {unanalyzed}",
                  file=sys.stderr)
        for f in run_stoker(args.stoker, checkout, args.verbose):
            if f["path"] not in counted:
                continue
            if not family_scored(f["code"], families):
                outside[f["code"]] += 1
                continue
            key = (r["name"], f["path"], f["line"], f["code"])
            reported_keys.add(key)
            d = by_key.get(key)
            label = d["label"] if d else "unlabeled"
            counts[label] += 1
            per_repo[r["name"]]["reported"] += 1
            per_repo[r["name"]]["correct"] += label in CORRECT
            if label == "fp":
                per_class_fp[d["class"]] += 1
                fps.append(d)
            if d is None:
                unlabeled.append((key, f))

    must = [d for d in labels if d["label"] == "must"]
    found_must = [d for d in must if (d["repo"], d["path"], d["line"], d["code"]) in reported_keys]
    missed = [d for d in must if d not in found_must]
    for d in must:
        per_repo[d["repo"]]["must"] += 1
        per_repo[d["repo"]]["must_found"] += d in found_must
    reported = sum(counts.values())
    correct = counts["must"] + counts["may"]
    precision = correct / reported if reported else 1.0
    recall = len(found_must) / len(must) if must else 1.0

    if args.record_reported:
        record_reported(args.labels or os.path.splitext(args.manifest)[0] + ".tsv", reported_keys, families)

    changed = []
    for d in labels:
        if d["reported"] == "-":
            continue  # written before any run: nothing to compare with
        now = (d["repo"], d["path"], d["line"], d["code"]) in reported_keys
        was = d["reported"] == "yes"
        if now != was:
            changed.append(("NEW " if now else "LOST", d))

    print(f"stoker: {args.stoker}")
    print(f"manifest: {args.manifest} ({len(m['repos'])} repositories, "
          f"{sum(len(r['files']) for r in m['repos'])} counted files, families {','.join(families)})")
    print(f"reported in counted files: {reported} (must {counts['must']}, may {counts['may']}, "
          f"fp {counts['fp']}, unlabeled {counts['unlabeled']})")
    print(f"precision = {correct}/{reported} = {precision:.2f}")
    print(f"recall    = {len(found_must)}/{len(must)} = {recall:.2f}")
    if outside:
        print("not scored (other families): " + ", ".join(f"{c} {n}" for c, n in sorted(outside.items())))
    print("\nper repository: reported correct/all, must found/all")
    for r in m["repos"]:
        c = per_repo[r["name"]]
        print(f"  {r['name']:<18} {c['correct']}/{c['reported']:<4} {c['must_found']}/{c['must']}")
    if per_class_fp:
        print("\nfalse positives reported, by class: "
              + ", ".join(f"{k or '-'}: {v}" for k, v in sorted(per_class_fp.items())))
    miss_class = Counter(d["class"] for d in missed)
    if miss_class:
        print("must labels missed, by class: " + ", ".join(f"{k or '-'}: {v}" for k, v in sorted(miss_class.items())))
    for key, f in unlabeled:
        print(f"UNLABELED {key[0]} {key[1]}:{key[2]} {key[3]} [{f['severity']}] {f['message']}")
    for what, d in changed:
        print(f"{what} {d['label']:<4} {d['repo']} {d['path']}:{d['line']} {d['code']} (class {d['class']}) {d['note']}")
    if args.verbose:
        for d in fps:
            print(f"FP   {d['repo']} {d['path']}:{d['line']} {d['code']} (class {d['class']}) {d['note']}")
        for d in missed:
            print(f"MISSED must {d['repo']} {d['path']}:{d['line']} {d['code']} (class {d['class']}) {d['note']}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"precision": precision, "recall": recall, "reported": reported,
                       "correct": correct, "must": len(must), "must_found": len(found_must),
                       "by_label": dict(counts),
                       "unlabeled": [dict(zip(("repo", "path", "line", "code"), k)) for k, _ in unlabeled],
                       "missed": [{k: d[k] for k in ("repo", "path", "line", "code", "class")} for d in missed],
                       "false_positives": [{k: d[k] for k in ("repo", "path", "line", "code", "class")} for d in fps]},
                      f, indent=1)
    if FAILED_RUNS:
        for checkout, rc in FAILED_RUNS:
            print(f"FAILED {checkout}: stoker exited {rc}; these figures are not a measurement")
        return 3
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fetch", help="bring the corpus of a manifest to its recorded commits")
    f.add_argument("--manifest", required=True)
    f.add_argument("--corpus", help="directory of the checkouts (default: the manifest's `corpus`)")
    f.add_argument("--mirror-root", default="/work/.mirror", help="where bare mirrors <owner>+<name>/repo live")
    s = sub.add_parser("score", help="run stoker on the corpus and score it against the labels")
    s.add_argument("--stoker", required=True, help="the stoker binary to measure")
    s.add_argument("--manifest", required=True)
    s.add_argument("--labels", help="labels TSV (default: the manifest's name with .tsv)")
    s.add_argument("--families", help="comma-separated code prefixes to score instead of the manifest's `codes`")
    s.add_argument("--corpus", help="directory of the checkouts (default: the manifest's `corpus`)")
    s.add_argument("--json", help="also write the figures and the missed/unlabeled lists as JSON")
    s.add_argument("-v", "--verbose", action="store_true", help="also list every reported false positive and every missed must label")
    s.add_argument("--record-reported", action="store_true",
                   help="rewrite the labels file's `reported` column with this binary's outcome (labels and other columns untouched)")
    args = ap.parse_args()
    return cmd_fetch(args) if args.cmd == "fetch" else cmd_score(args)


if __name__ == "__main__":
    sys.exit(main())
