#!/usr/bin/env bash
# Runs every examples/*.py with PyTorch on tiny synthetic data (`--smoke`), then applies
# `stoker check --fix --unsafe-fixes` to a copy and runs the fixed copy again: both runs must
# complete, so fixes keep programs working, not just parsing.
#   run_examples.sh STOKER_BINARY SOURCE_DIR
set -uo pipefail
stoker=$1
src=$2
# Debian's python3-torch installs for the system interpreter, which may not be first on PATH.
python=${STOKER_TEST_PYTHON:-/usr/bin/python3}

shopt -s nullglob
examples=("$src"/examples/*.py)
if ((${#examples[@]} == 0)); then
  echo "no examples/*.py to run"
  exit 0
fi
if ! "$python" -c "import torch" 2>/dev/null; then
  echo "FAIL: $python cannot import torch (setup.sh installs python3-torch)"
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CUDA_VISIBLE_DEVICES=""  # the smoke runs are CPU runs, also on a machine with a GPU
failed=0
for ex in "${examples[@]}"; do
  name=$(basename "$ex")
  # Each run gets a copy of examples/ in the repository's layout, so helpers an example finds
  # relative to itself (tests/support/) resolve as they do in a checkout.
  rm -rf "$work/before" "$work/after"
  for side in before after; do
    mkdir -p "$work/$side/examples"
    cp "$src"/examples/*.py "$work/$side/examples/"
    # Support code the examples import when optional packages (Lightning) are missing.
    mkdir -p "$work/$side/tests/support" && cp "$src"/tests/support/*.py "$work/$side/tests/support/"
    [ -e "$work/$side/tests" ] || ln -s "$src/tests" "$work/$side/tests"
  done
  if ! (cd "$work/before/examples" && timeout 300 "$python" "$name" --smoke >"$work/$name.before.log" 2>&1); then
    echo "FAIL: $name --smoke (as written)"; tail -20 "$work/$name.before.log"; failed=1; continue
  fi
  "$stoker" check --fix --unsafe-fixes --no-color "$work/after/examples/$name" >"$work/$name.fix.log" 2>&1
  rc=$?
  if ((rc > 1)); then
    echo "FAIL: stoker --fix on $name exited $rc"; cat "$work/$name.fix.log"; failed=1; continue
  fi
  if grep -q "fix not applied" "$work/$name.fix.log"; then
    echo "FAIL: a fix of $name was refused"; cat "$work/$name.fix.log"; failed=1; continue
  fi
  if ! (cd "$work/after/examples" && timeout 300 "$python" "$name" --smoke >"$work/$name.after.log" 2>&1); then
    echo "FAIL: $name --smoke after --fix --unsafe-fixes"; diff -u "$work/before/examples/$name" "$work/after/examples/$name"
    tail -20 "$work/$name.after.log"; failed=1; continue
  fi
  changed=$(cmp -s "$work/before/examples/$name" "$work/after/examples/$name" && echo unchanged || echo fixed)
  echo "ok: $name (before and after --fix; file $changed)"
done
exit $failed
