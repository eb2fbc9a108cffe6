#!/bin/bash
# Scores one stoker binary on every labelled Python set (or the sets named), two sets at a time,
# and prints each set's correct/reported and must found/all, then the pooled figures.
#   bench/labels/score_all.sh BIN PREFIX [SET...]     (SET: a, b, ..., bf; default: every
#   python-set-*.json here except those named in $SEALED, space-separated)
# Writes $OUT/PREFIX-SET.json and .txt (OUT defaults to /tmp/stoker-scores); compare two runs
# list by list with bench/labels/compare.py OLD NEW. The checkouts come from `score.py fetch`.
here=$(cd "$(dirname "$0")" && pwd)
BIN=$(realpath "${1:?usage: score_all.sh BIN PREFIX [SET...]}"); P=${2:?usage: score_all.sh BIN PREFIX [SET...]}; shift 2
OUT=${OUT:-/tmp/stoker-scores}
sets=("$@")
if ((${#sets[@]} == 0)); then
  for m in "$here"/python-set-*.json; do
    s=${m##*python-set-}; s=${s%.json}
    [[ " ${SEALED:-} " == *" $s "* ]] || sets+=("$s")
  done
fi
mkdir -p "$OUT"
export BIN P OUT here
printf '%s\n' "${sets[@]}" | xargs -P 2 -I{} bash -c \
  'python3 "$here/score.py" score --stoker "$BIN" --manifest "$here/python-set-{}.json" -v --json "$OUT/$P-{}.json" > "$OUT/$P-{}.txt" 2>&1 || echo "{}: score.py exited $? (see $OUT/$P-{}.txt)"'
python3 - "$OUT" "$P" "${sets[@]}" <<'PY'
import json, sys
out, p = sys.argv[1], sys.argv[2]
c = r = m = mf = 0
for s in sys.argv[3:]:
    try:
        d = json.load(open(f"{out}/{p}-{s}.json"))
    except (OSError, ValueError):
        print(f"{s:3} no result"); continue
    c += d["correct"]; r += d["reported"]; m += d["must"]; mf += d["must_found"]
    print(f"{s:3} {d['correct']}/{d['reported']} {d['must_found']}/{d['must']} unlabeled={len(d['unlabeled'])}")
print(f"pooled {c}/{r} = {c / max(r, 1):.3f} precision, {mf}/{m} = {mf / max(m, 1):.3f} recall")
PY
