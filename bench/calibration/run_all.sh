#!/usr/bin/env bash
# Runs every calibration script and prints one Markdown table (paste it into
# docs/impact-model.md). Uses Debian's python3-torch by default; CUDA when available.
#   bench/calibration/run_all.sh [--cpu] [--gpu PROFILE]
set -euo pipefail
cd "$(dirname "$0")"
python=${PYTHON:-/usr/bin/python3}
"$python" -c 'import common; print(common.HEADER)'
for script in serial_loader respawn pageable_copy blocking_copy sync_bubble small_batch alloc_in_loop; do
  "$python" "$script.py" "$@"
done
