#!/usr/bin/env bash
# Reads of uninitialized memory (a syntax-tree node declared without a value and used on a path
# that never set it: CI's fuzz run of session 36 crashed in tree-sitter on one) are not seen by
# AddressSanitizer, and in an ordinary build they crash only where the stack happens to hold
# garbage. Valgrind's memcheck reports every such read: stoker checks the Python fixtures, the
# examples' Python files and the fuzz regression inputs under it, one process, and the test fails
# on any memcheck error (or a crash). (The C++ front end's LibTooling runs ~10x longer under
# memcheck: left to the sanitizers.)
#   valgrind_check.sh STOKER SOURCE_DIR
set -uo pipefail
stoker=${1:?usage: valgrind_check.sh STOKER SOURCE_DIR}
src=${2:?usage: valgrind_check.sh STOKER SOURCE_DIR}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# --error-exitcode: a code stoker never uses (0 clean, 1 findings, 2 errors).
valgrind --error-exitcode=99 --leak-check=no --track-origins=yes -q \
  --suppressions="$(dirname "$0")/valgrind.supp" \
  "$stoker" check "$src/tests/fixtures/python" "$src/tests/fuzz-regressions/python" $(find "$src/examples" -name '*.py') \
  --no-cache --output-format json >/dev/null 2>"$log"
rc=$?
if [ "$rc" -eq 99 ] || [ "$rc" -gt 128 ] || grep -q '^==[0-9]*== ' "$log"; then
  echo "valgrind_check: memcheck errors or a crash (exit $rc):"
  head -80 "$log"
  exit 1
fi
echo "valgrind_check: no memcheck error (stoker exit $rc)"
