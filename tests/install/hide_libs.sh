#!/usr/bin/env bash
# Runs a command where the shared libraries the dynamic stoker needs are not visible: a private
# mount namespace with an empty tmpfs over /usr/lib/llvm-22 and /dev/null bound over every
# LLVM, Clang, libgit2 (and its TLS/SSH libraries), tree-sitter and libstdc++ shared object.
# Needs root or unprivileged mount namespaces; exits 77 (ctest: skipped) when neither works.
#   hide_libs.sh COMMAND [ARG...]
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"  # chroot, mount: ctest may run without sbin on PATH
if ! unshare -m true 2>/dev/null; then
  echo "hide_libs: cannot create a mount namespace here (not root?); skipped" >&2
  exit 77
fi
exec unshare -m --propagation private bash -c '
set -euo pipefail
mount -t tmpfs -o size=1m none /usr/lib/llvm-22
shopt -s nullglob
for f in /usr/lib/x86_64-linux-gnu/{libLLVM,libclang,libgit2,libtree-sitter,libstdc++,libmbed,libssh2,libhttp_parser}*.so*; do
  if [ -f "$f" ] && [ ! -L "$f" ]; then mount --bind /dev/null "$f"; fi
done
exec "$@"' hide_libs "$@"
