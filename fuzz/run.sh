#!/usr/bin/env bash
# Runs the libFuzzer targets of a STOKER_FUZZ=ON build for a bounded time each, one after the
# other (one process: the CI machine has 2 cores), starting from the seed corpora
# (make_corpus.py). Prints libFuzzer's final figures per target and fails when any target finds
# a crash, a leak, a timeout (an input taking longer than the per-input limit) or runs out of
# memory; the input that did it is left in ARTIFACTS/<target>/.
#   fuzz/run.sh BUILD_DIR SECONDS_EACH [TARGET...]     (targets: python suppression config lsp cxx trace)
# Environment: FUZZ_WORK (corpora and artifacts; default BUILD_DIR/fuzz/work), FUZZ_SEED (default
# 1, for repeatable CI runs; 0 lets libFuzzer pick one), FUZZ_RUNS=ci (stop each target after a
# fixed number of inputs, about 45 s each on the CI machine, SECONDS_EACH staying the ceiling:
# with a fixed seed and a fresh FUZZ_WORK the run is the same on every machine that is not
# slower than that, so a commit that passed here passes in CI).
set -uo pipefail
build=${1:?usage: fuzz/run.sh BUILD_DIR SECONDS_EACH [TARGET...]}
seconds=${2:?usage: fuzz/run.sh BUILD_DIR SECONDS_EACH [TARGET...]}
shift 2
targets=("$@")
((${#targets[@]})) || targets=(python suppression config lsp cxx trace)
here=$(cd "$(dirname "$0")" && pwd)
work=${FUZZ_WORK:-$build/fuzz/work}
seed=${FUZZ_SEED:-1}

python3 "$here/make_corpus.py" "$here/.." "$work/seeds" >/dev/null || exit 2
# Leaks are reported (libFuzzer checks each input that allocates more than it frees).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=0
for t in "${targets[@]}"; do
  bin=$build/fuzz/fuzz_$t
  [ -x "$bin" ] || { echo "fuzz: $bin not built (cmake -DSTOKER_FUZZ=ON)"; exit 2; }
  corpus=$work/corpus/$t
  artifacts=$work/artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  args=(-max_total_time="$seconds" -seed="$seed" -print_final_stats=1 -rss_limit_mb=4096
        -artifact_prefix="$artifacts/")
  case $t in
    python) args+=(-dict="$here/python.dict" -max_len=8192 -timeout=25) ;;
    suppression) args+=(-dict="$here/python.dict" -max_len=8192 -timeout=25) ;;
    config) args+=(-dict="$here/config.dict" -max_len=4096 -timeout=25) ;;
    lsp) args+=(-dict="$here/lsp.dict" -max_len=16384 -timeout=25) ;;
    cxx) args+=(-dict="$here/cxx.dict" -max_len=4096 -timeout=60) ;;
    trace) args+=(-dict="$here/trace.dict" -max_len=4096 -timeout=25) ;;
  esac
  if [ "${FUZZ_RUNS:-}" = ci ]; then
    case $t in
      python) args+=(-runs=6000) ;;
      suppression) args+=(-runs=40000) ;;
      config) args+=(-runs=20000) ;;
      lsp) args+=(-runs=4000) ;;
      cxx) args+=(-runs=500) ;;
      trace) args+=(-runs=4000) ;;  # about 2-3 ms an input under the sanitizers: ~10-15 s
    esac
  fi
  # The server leaks its session on purpose when `exit` comes during an analysis (the process
  # is about to end; lsp/session.h): leaks are not checked for the LSP target.
  # (-detect_leaks=0 stops libFuzzer's check after each input; LeakSanitizer's own check at exit,
  # which a run bounded by -runs reaches, is turned off through ASAN_OPTIONS.)
  asan=$ASAN_OPTIONS
  [ "$t" = lsp ] && args+=(-detect_leaks=0) && asan="$ASAN_OPTIONS:detect_leaks=0"
  log=$work/$t.log
  echo "fuzz: $t for ${seconds}s"
  ASAN_OPTIONS=$asan "$bin" "${args[@]}" "$corpus" "$work/seeds/$t" >"$log" 2>&1
  rc=$?
  # The last status line (#N ... cov: ft: corp: exec/s:) and the final statistics.
  grep -E '^#[0-9]+' "$log" | tail -1
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" | tr '\n' ' '
  echo
  if [ "$rc" -ne 0 ]; then
    failed=1
    echo "fuzz: $t FAILED (exit $rc); its log: $log; the input: $(ls "$artifacts")"
    grep -E 'ERROR: |SUMMARY: |runtime error' "$log" | head -5
    # The stack, and the input itself (base64, up to 16 KiB), so that a failure on a machine
    # whose files are gone (CI) can be replayed: `base64 -d > input; build/fuzz/fuzz_T input`.
    grep -E '^ +#[0-9]+ 0x' "$log" | head -25
    for a in "$artifacts"/*; do
      [ -f "$a" ] || continue
      if [ "$(stat -c %s "$a")" -le 16384 ]; then
        echo "fuzz: $(basename "$a") (base64):"
        base64 -w 0 "$a"
        echo
      fi
    done
  fi
done
exit $failed
