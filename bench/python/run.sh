#!/usr/bin/env bash
# Python analysis throughput as a ratio against parse-only, in one run (bench/python/README.md).
#   bench/python/run.sh [--callgrind] [PATH...]
# Default corpus: tests/fixtures/python, examples and a generated 2,000-line training script.
# --callgrind: instead of timing, count instructions (deterministic on a noisy machine) for
# analyze() and for tree-sitter's parse, on one run over the corpus.
set -euo pipefail
cd "$(dirname "$0")/../.."
callgrind=0
if [ "${1:-}" = "--callgrind" ]; then callgrind=1; shift; fi
ninja -C build stoker_pybench >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
paths=("$@")
if [ ${#paths[@]} -eq 0 ]; then
  python3 -c "import sys; sys.path.insert(0, 'bench/lsp'); import latency; open('$tmp/train_2000.py', 'w').write(latency.generate(2000))"
  paths=(tests/fixtures/python examples "$tmp/train_2000.py")
fi
if [ $callgrind -eq 0 ]; then
  exec build/stoker_pybench --repeat 3 "${paths[@]}"
fi
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" build/stoker_pybench --repeat 1 --top 0 "${paths[@]}" >/dev/null 2>&1
# stoker_pybench parses each file once on its own, then analyze() parses it again.
callgrind_annotate --inclusive=yes "$tmp/cg" 2>/dev/null | awk '
  /stoker::analyze\(stoker::SourceFile const&, stoker::Settings const&\)/ { gsub(",", "", $1); full = $1 }
  /stoker::python::ParsedModule::ParsedModule\(/ { gsub(",", "", $1); parse = $1 / 2 }
  END {
    printf "instructions: parse %.0f M, full analysis %.0f M (analysis beyond the parse %.0f M), full / parse %.2fx\n",
           parse / 1e6, full / 1e6, (full - parse) / 1e6, full / parse
  }'
