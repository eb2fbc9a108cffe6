#!/usr/bin/env bash
# stoker against ast-grep on the same Python files, in one run, as a CPU-time ratio (issue 10).
#   bench/astgrep/run.sh [--stoker BIN] [--repeat N] DIR...
# The .py files of each DIR are copied (layout kept) into one temporary tree, so that neither
# tool reads anything else (stoker would analyze C++/CUDA files with Clang). ast-grep runs five
# pattern rules (as issue 10's measurement did); stoker runs `check` in project mode and with
# --no-project. Every run uses one thread; the best CPU time (user + sys) of N rounds is kept,
# the tools alternating within a round so that a busy machine slows them alike.
# ast-grep: `npm install --prefix /tmp/astgrep @ast-grep/cli` (or AST_GREP=path).
set -euo pipefail
cd "$(dirname "$0")/../.."
stoker=build/stoker
repeat=3
while [ $# -gt 0 ]; do
  case "$1" in
    --stoker) stoker=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--stoker BIN] [--repeat N] DIR..." >&2; exit 2; }
sg=${AST_GREP:-$(command -v ast-grep || echo /tmp/astgrep/node_modules/.bin/ast-grep)}
[ -x "$sg" ] || { echo "ast-grep not found: npm install --prefix /tmp/astgrep @ast-grep/cli" >&2; exit 2; }
stoker=$(readlink -f "$stoker")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for d in "$@"; do
  dest="$tmp/corpus/$(basename "$d")"
  (cd "$d" && find . -name '*.py' -type f -print0 | while IFS= read -r -d '' f; do
     mkdir -p "$dest/$(dirname "$f")"; cp "$f" "$dest/$f"; done)
done
files=$(find "$tmp/corpus" -name '*.py' | wc -l)
bytes=$(find "$tmp/corpus" -name '*.py' -print0 | xargs -0 cat | wc -c)
rules='id: item
language: python
rule: { pattern: $X.item() }
---
id: cuda
language: python
rule: { pattern: $X.cuda() }
---
id: loader
language: python
rule: { pattern: DataLoader($$$) }
---
id: sync
language: python
rule: { pattern: torch.cuda.synchronize() }
---
id: cpu
language: python
rule: { pattern: $X.cpu() }'
cpu() {  # CPU seconds (user + sys) of a command, its output discarded
  /usr/bin/time -f "%U %S" -o "$tmp/t" "$@" >/dev/null 2>&1 || true
  tail -n 1 "$tmp/t" | awk '{ printf "%.3f", $1 + $2 }'
}
best_sg= best_p= best_n=
for ((r = 0; r < repeat; ++r)); do
  t=$(cpu "$sg" scan --threads 1 --json --inline-rules "$rules" "$tmp/corpus")
  best_sg=$(awk -v a="$t" -v b="${best_sg:-1e9}" 'BEGIN { print (a < b) ? a : b }')
  t=$(cpu "$stoker" check "$tmp/corpus" --no-cache --threads 1 --output-format json)
  best_p=$(awk -v a="$t" -v b="${best_p:-1e9}" 'BEGIN { print (a < b) ? a : b }')
  t=$(cpu "$stoker" check "$tmp/corpus" --no-project --no-cache --threads 1 --output-format json)
  best_n=$(awk -v a="$t" -v b="${best_n:-1e9}" 'BEGIN { print (a < b) ? a : b }')
done
echo "$files files, $((bytes / 1024)) KiB, best of $repeat, CPU seconds, one thread:"
awk -v s="$best_sg" -v p="$best_p" -v n="$best_n" 'BEGIN {
  printf "  ast-grep (5 rules)      %.3f s\n", s
  printf "  stoker --no-project     %.3f s  (%.2fx ast-grep)\n", n, n / s
  printf "  stoker (project mode)   %.3f s  (%.2fx ast-grep)\n", p, p / s
}'
