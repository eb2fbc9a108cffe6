#!/usr/bin/env bash
# The calibration as one prepared run on a lent GPU machine (the device tool runs this from the
# repository root): every script on CUDA, with a hard time limit, the table and the machine's
# description written to $OUT. Needs PyTorch with CUDA there and a stoker binary ($STOKER,
# build/stoker, or build-static/stoker-static carried with the working tree).
#   bench/calibration/gpu_session.sh [--steps N]      (default 20 steps per variant)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/calibration-out}
mkdir -p "$out"
for cand in "${STOKER:-}" "$root/build/stoker" "$root/build-static/stoker-static"; do
  if [ -n "$cand" ] && [ -x "$cand" ]; then export STOKER=$cand; break; fi
done
[ -n "${STOKER:-}" ] || { echo "no stoker binary (set STOKER or carry build/stoker)" | tee "$out/error.txt"; exit 2; }
# The first Python that has PyTorch: $PYTHON, python3 on PATH, Debian's.
python=
for cand in "${PYTHON:-}" python3 /usr/bin/python3; do
  if [ -n "$cand" ] && "$cand" -c 'import torch' 2>/dev/null; then python=$cand; break; fi
done
[ -n "$python" ] || { echo "no Python with PyTorch (set PYTHON)" | tee "$out/error.txt"; exit 2; }
{ nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv || true
  "$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.is_available())'
} > "$out/machine.txt" 2>&1
steps=20
[ "${1:-}" = "--steps" ] && steps=$2
cd "$root/bench/calibration"
"$python" -c 'import common; print(common.HEADER)' > "$out/table.md"
for script in serial_loader respawn pageable_copy blocking_copy sync_bubble small_batch alloc_in_loop; do
  # 60 s per script keeps the whole run well inside one 10-minute device call.
  timeout 60 "$python" "$script.py" --steps "$steps" >> "$out/table.md" 2>> "$out/errors.txt" ||
    echo "| $script | - | failed or timed out (errors.txt) | | | | | |" >> "$out/table.md"
done
cat "$out/machine.txt" "$out/table.md"
