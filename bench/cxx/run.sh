#!/usr/bin/env bash
# Header-free analysis time per translation unit: runs stoker on each C++/CUDA fixture N times
# (one file per process, so process start-up is included) and prints the mean wall time.
#   bench/cxx/run.sh [N] [FILES...]       (STOKER=path/to/stoker to time another build)
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-10}; shift || true
files=("$@"); [ ${#files[@]} -gt 0 ] || files=(tests/fixtures/cxx/*.cu tests/fixtures/cxx/*.cpp examples/cuda/*.cu)
for f in "${files[@]}"; do
  start=$(date +%s.%N)
  for _ in $(seq "$n"); do "${STOKER:-./build/stoker}" check --exit-zero --output-format concise "$f" >/dev/null 2>&1; done
  end=$(date +%s.%N)
  printf '%-45s %6.0f ms/TU\n' "$f" "$(echo "($end - $start) * 1000 / $n" | bc -l)"
done
