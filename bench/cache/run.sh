#!/usr/bin/env bash
# The result cache: a warm re-run of a large tree as a ratio of the cold run.
#   bench/cache/run.sh [STOKER] [FILES]   (defaults: build/stoker, 5000)
# Generates FILES Python files (the rule fixtures and examples/, each copy made distinct) in a
# temporary directory, then times `stoker check` there: with --no-cache, cold (empty cache, the
# cache is written), and warm (every result read from the cache), best of three each.
set -euo pipefail
cd "$(dirname "$0")/../.."
STOKER=$(realpath "${1:-build/stoker}")
FILES=${2:-5000}
work=$(mktemp -d /tmp/stoker-cache-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
mapfile -t sources < <(ls tests/fixtures/python/*.py examples/*.py)
for ((i = 0; i < FILES; i++)); do
  src=${sources[i % ${#sources[@]}]}
  dir="$work/tree/pkg$((i / 100))"
  mkdir -p "$dir"
  { cat "$src"; echo "BENCH_COPY_$i = $i"; } > "$dir/m$i.py"
done
lines=$(cat "$work"/tree/pkg*/*.py | wc -l)
cd "$work/tree"
run() {  # prints the best wall time in seconds of three runs of: stoker check ARGS
  local best=
  for _ in 1 2 3; do
    [ "${PREP:-}" = clean ] && "$STOKER" clean >/dev/null
    local t0 t1
    t0=$(date +%s.%N)
    "$STOKER" check --exit-zero --output-format concise "$@" . >/dev/null 2>&1
    t1=$(date +%s.%N)
    best=$(echo "$t0 $t1 ${best:-1e9}" | awk '{d = $2 - $1; print (d < $3 ? d : $3)}')
  done
  echo "$best"
}
nocache=$(run --no-cache)
cold=$(PREP=clean run)
warm=$(run)
"$STOKER" check -v --exit-zero --output-format concise . 2>&1 >/dev/null | grep cache || true
echo "files: $FILES ($lines lines)"
echo "no cache:  ${nocache}s"
echo "cold:      ${cold}s (empty cache, entries written)"
echo "warm:      ${warm}s"
awk -v w="$warm" -v c="$cold" -v n="$nocache" 'BEGIN { printf "warm / cold = %.3f   warm / no-cache = %.3f\n", w / c, w / n }'
