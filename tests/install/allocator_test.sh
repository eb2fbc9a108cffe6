#!/usr/bin/env bash
# The executable's malloc is jemalloc's (CMakeLists.txt, "The memory allocator"): with
# MALLOC_CONF=stats_print:true, jemalloc prints its statistics at exit, which only a process whose
# malloc is jemalloc's does. The analysis output is the same with and without the statistics.
# A control that does not link jemalloc (the system's `true`) must print none.
#   allocator_test.sh STOKER SOURCE_DIR WORK_DIR
set -euo pipefail
bin="$(realpath "$1")" src="$(realpath "$2")" work="$3"
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
marker='Begin jemalloc statistics'

MALLOC_CONF=stats_print:true "$(command -v true)" 2>"$work/control.err"
! grep -q "$marker" "$work/control.err" || fail "the control printed jemalloc statistics: the check cannot tell"

run() {  # run OUT ERR [env...]: check the examples, exit 0 (clean) or 1 (findings)
  local out="$1" err="$2"; shift 2
  set +e
  env "$@" "$bin" check "$src/examples" --no-cache --output-format json >"$out" 2>"$err"
  local rc=$?
  set -e
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat "$err" >&2; fail "stoker check exited $rc"; }
}
run "$work/plain.json" "$work/plain.err"
run "$work/stats.json" "$work/stats.err" MALLOC_CONF=stats_print:true
grep -q "$marker" "$work/stats.err" || { head -c 400 "$work/stats.err" >&2; fail "no jemalloc statistics: $bin does not use jemalloc"; }
! grep -q "$marker" "$work/plain.err" || fail "statistics printed without MALLOC_CONF"
cmp -s "$work/plain.json" "$work/stats.json" || fail "the output differs with the statistics on"
# The executable's own options (src/cli/main.cpp, malloc_conf): huge pages, freed pages kept.
for opt in 'opt.thp: "always"' 'opt.metadata_thp: "always"' 'opt.dirty_decay_ms: -1' 'opt.muzzy_decay_ms: -1'; do
  grep -qF "$opt" "$work/stats.err" || fail "jemalloc does not report $opt: main.cpp's malloc_conf is not read"
done
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d, "no findings"' "$work/plain.json" \
  || fail "the output is not a non-empty JSON document"
echo "ok: $bin allocates with jemalloc ($(grep -c . "$work/stats.err") lines of statistics)"
