#!/usr/bin/env bash
# Startup cost of a Python-only run: instructions (valgrind --tool=callgrind, the process from
# its first instruction, dynamic loading included) and wall time of repeated runs, for the
# dynamic build and the self-contained binary, against /bin/true. Figures: README.md here.
#   bench/startup/run.sh [BUILD_DIR]      (default build/; needs build/stoker-static)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(realpath "${1:-$root/build}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf 'import torch\nx = torch.ones(3)\nprint(x.sum().item())\n' > "$work/tiny.py"
mkdir -p "$work/repo" && cp "$work/tiny.py" "$work/repo/" && git -C "$work/repo" init -q

instructions() {
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$@" >/dev/null 2>"$work/cg.err" || true
  sed -n 's/^==[0-9]*== Collected : //p' "$work/cg.err"
}
wall_ms() {  # medians of 21 runs, milliseconds: wall time | CPU time (user + system)
  python3 - "$@" <<'PY'
import os, subprocess, sys, time, statistics
wall, cpu = [], []
for _ in range(21):
    s = time.perf_counter()
    p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    wall.append(time.perf_counter() - s); cpu.append(ru.ru_utime + ru.ru_stime)
print(f"{statistics.median(wall) * 1000:.1f} | {statistics.median(cpu) * 1000:.1f}")
PY
}
base=$(instructions /bin/true)
printf '| run | instructions | x /bin/true | wall ms | CPU ms |\n|---|---:|---:|---:|---:|\n'
printf '| /bin/true | %s | 1 | %s |\n' "$base" "$(wall_ms /bin/true)"
for bin in "$build/stoker" "$build/stoker-static"; do
  [ -x "$bin" ] || continue
  name="$(basename "$bin")"
  for args in "version" "check $work/tiny.py" "check $work/repo"; do
    # shellcheck disable=SC2086
    n=$(instructions "$bin" $args)
    # shellcheck disable=SC2086
    printf '| `%s %s` | %s | %s | %s |\n' "$name" "${args//$work\//}" "$n" "$(( n / base ))" "$(wall_ms "$bin" $args)"
  done
done
