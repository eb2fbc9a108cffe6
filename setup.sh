#!/usr/bin/env bash
# Installs what is missing (Debian packages, the pinned npm grammar), builds stoker (Release)
# into build/, and runs it on examples/. Safe to run again: it only installs what is missing.
#   ./setup.sh            install, build, run on examples/
#   ./setup.sh --no-run   install and build only (used by .ci/run)
set -euo pipefail
cd "$(dirname "$0")"

DEBIAN_PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libtree-sitter-dev nlohmann-json3-dev libcli11-dev catch2 libtomlplusplus-dev libgit2-dev
  neovim unzip
)

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

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --parallel

if [ "${1:-}" != "--no-run" ]; then
  echo
  echo "setup: running stoker on examples/"
  echo
  rc=0
  ./build/stoker check examples/ || rc=$?
  # 1 means findings were reported, which is what the examples are for.
  [ "$rc" -le 1 ] || exit "$rc"
fi
