#!/usr/bin/env bash
# Installs what is missing (Debian packages, the pinned npm grammar), builds stoker (Release)
# into build/, and runs it on examples/. Safe to run again: it only installs what is missing.
#   ./setup.sh            install, build, run on examples/
#   ./setup.sh --no-run   install and build only (used by .ci/run)
#   --no-tests            build only the stoker binary, without test-only tools (used by action.yml)
set -euo pipefail
NO_RUN=0; NO_TESTS=0
for arg in "$@"; do
  case "$arg" in
    --no-run) NO_RUN=1 ;;
    --no-tests) NO_TESTS=1 ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")"

DEBIAN_PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libtree-sitter-dev nlohmann-json3-dev libcli11-dev catch2 libtomlplusplus-dev libgit2-dev
  libclang-cpp22-dev libclang-22-dev llvm-22-dev
  libzstd-dev    # the static archive stoker-static links (docs/install.md)
  libjemalloc-dev  # the memory allocator both executables link (docs/architecture.md)
  zlib1g-dev     # gzip-compressed profiler traces (--profile)
)
# Test-only real consumers: pre-commit (hook test), ICU for the SARIF Multitool (a
# self-contained .NET program from npm, tests/tools), Neovim (LSP client test), PyTorch and
# patch (examples run before and after --fix, diffs applied), unzip (the .vsix check), venv and
# Debian's pip/setuptools wheels (the wheel installed offline, docs/install.md), util-linux's
# unshare (the self-contained binary run with the LLVM libraries hidden), nbformat (fixed
# notebooks are validated with Jupyter's own schema), clang 22 with its compiler-rt (the sanitizer
# and libFuzzer build of .ci/run, build-asan/), Chromium and PIL (the HTML report rendered
# headless: DOM and screenshot checks, tests/html/), valgrind (reads of uninitialized memory,
# tests/robustness/valgrind_check.sh).
TEST_PACKAGES=(pre-commit libicu72 neovim python3-torch patch unzip python3-venv python3-pip-whl
               python3-setuptools-whl util-linux python3-nbformat clang-22 libclang-rt-22-dev
               chromium python3-pil valgrind)
((NO_TESTS)) || DEBIAN_PACKAGES+=("${TEST_PACKAGES[@]}")

missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm may come from elsewhere than Debian (then installing Debian's would conflict).
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f grammars/node_modules/tree-sitter-python/src/parser.c ]; then
  echo "setup: installing the pinned tree-sitter-python grammar (npm ci)"
  (cd grammars && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi

if ((!NO_TESTS)) && [ ! -x tests/tools/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool ]; then
  echo "setup: installing the SARIF Multitool for the tests (npm ci in tests/tools)"
  (cd tests/tools && npm ci --no-audit --no-fund --loglevel=error)
  chmod u+x tests/tools/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTOKER_BUILD_TESTS=$([ "$NO_TESTS" = 1 ] && echo OFF || echo ON) >/dev/null
cmake --build build --parallel 2

if ((!NO_RUN)); then
  echo
  echo "setup: running stoker on examples/"
  echo
  rc=0
  ./build/stoker check examples/ || rc=$?
  # 1 means findings were reported, which is what the examples are for.
  [ "$rc" -le 1 ] || exit "$rc"
fi
