#!/usr/bin/env python3
"""Compares two score_all.sh runs set by set and list by list (missed must labels, reported false
positives, findings without a label): `compare.py OLD NEW [-q]` reads $OUT/OLD-SET.json and
$OUT/NEW-SET.json (OUT defaults to /tmp/stoker-scores) for every set NEW has, prints the sets whose
figures or lists differ with what moved (-q: figures only), then the pooled figures."""
import glob
import json
import os
import sys


def main():
    args = [a for a in sys.argv[1:] if a != "-q"]
    if len(args) != 2:
        sys.exit(__doc__)
    old, new = args
    quiet = "-q" in sys.argv
    out = os.environ.get("OUT", "/tmp/stoker-scores")
    sets = sorted(os.path.basename(p)[len(new) + 1:-5] for p in glob.glob(f"{out}/{new}-*.json"))
    key = lambda d: (d["repo"], d["path"], d["line"], d["code"])
    tot = [0] * 8
    fields = ("correct", "reported", "must_found", "must")
    for s in sets:
        try:
            a = json.load(open(f"{out}/{old}-{s}.json"))
            b = json.load(open(f"{out}/{new}-{s}.json"))
        except (OSError, ValueError):
            print(f"{s}: missing in one run")
            continue
        for i, k in enumerate(fields):
            tot[i] += a[k]
            tot[4 + i] += b[k]
        moved = []
        for what in ("missed", "false_positives", "unlabeled"):
            before, after = {key(d) for d in a[what]}, {key(d) for d in b[what]}
            moved += [f"  -{what}: {k}" for k in sorted(before - after)]
            moved += [f"  +{what}: {k}" for k in sorted(after - before)]
        if moved or any(a[k] != b[k] for k in fields):
            print(f"{s}: {a['correct']}/{a['reported']} {a['must_found']}/{a['must']} -> "
                  f"{b['correct']}/{b['reported']} {b['must_found']}/{b['must']}")
            if not quiet and moved:
                print("\n".join(moved))
    print(f"pooled {tot[0]}/{tot[1]} {tot[2]}/{tot[3]} -> {tot[4]}/{tot[5]} = {tot[4] / max(tot[5], 1):.3f}, "
          f"{tot[6]}/{tot[7]} = {tot[6] / max(tot[7], 1):.3f}")


if __name__ == "__main__":
    main()
