#!/usr/bin/env bash
# Everything a release carries, from one built self-contained binary (build/stoker-static):
#   packaging/release_assets.sh BINARY OUT_DIR
#     OUT_DIR/stoker-VERSION-x86_64-linux.tar.gz   the binary (GitHub Action, manual install)
#     OUT_DIR/stoker-VERSION-py3-none-manylinux_2_NN_x86_64.whl   (pip, pre-commit)
#     OUT_DIR/stoker-linux-x64-VERSION.vsix        (VS Code, binary bundled)
#     OUT_DIR/SHA256SUMS
# .github/workflows/release.yml runs this on a tag; tests/install/release_and_action_test.sh runs
# it here and installs from the result as the Action does.
set -euo pipefail
binary="$(realpath "${1:?usage: release_assets.sh BINARY OUT_DIR}")"
out="$(mkdir -p "${2:?usage: release_assets.sh BINARY OUT_DIR}" && realpath "$2")"
root="$(cd "$(dirname "$0")/.." && pwd)"
version="$(sed -n 's/^project(stoker VERSION \([0-9][0-9A-Za-z.]*\).*/\1/p' "$root/CMakeLists.txt")"
got="$("$binary" version)"
if [ "$got" != "stoker $version" ]; then
  echo "release_assets: $binary says '$got', CMakeLists.txt says $version" >&2
  exit 1
fi
if [ -n "${RELEASE_TAG:-}" ] && [ "${RELEASE_TAG#v}" != "$version" ]; then
  echo "release_assets: tag $RELEASE_TAG does not match the project version $version" >&2
  exit 1
fi
name="stoker-$version-x86_64-linux"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/$name"
install -m 0755 "$binary" "$tmp/$name/stoker"
# Reproducible: fixed order, owner and times, no gzip timestamp.
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$tmp" -cf - "$name" | gzip -9n > "$out/$name.tar.gz"
python3 "$root/packaging/build_wheel.py" "$binary" "$out"
"$root/packaging/build_vsix.sh" "$binary" "$out"
(cd "$out" && sha256sum "$name.tar.gz" stoker-"$version"-py3-none-*.whl "stoker-linux-x64-$version.vsix" > SHA256SUMS)
cat "$out/SHA256SUMS"
