#!/usr/bin/env bash
# The VS Code platform package with the self-contained binary inside (bundled/bin/stoker):
#   packaging/build_vsix.sh BINARY OUT_DIR     -> OUT_DIR/stoker-linux-x64-VERSION.vsix
# The extension is staged in OUT_DIR/vsix-stage (its node_modules hard-linked, so the source
# tree is left as it is), compiled with tsc, and packaged with `vsce package --target linux-x64`.
# The extension runs the bundled binary unless stoker.path names another or PATH has one
# (stoker.importStrategy, the order of ruff's extension; vscode-extension/README.md).
set -euo pipefail
binary="$(realpath "${1:?usage: build_vsix.sh BINARY OUT_DIR}")"
out="$(mkdir -p "${2:?usage: build_vsix.sh BINARY OUT_DIR}" && realpath "$2")"
root="$(cd "$(dirname "$0")/.." && pwd)"
ext="$root/vscode-extension"
version="$(sed -n 's/^project(stoker VERSION \([0-9][0-9A-Za-z.]*\).*/\1/p' "$root/CMakeLists.txt")"
ext_version="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$ext/package.json")"
if [ "$version" != "$ext_version" ]; then
  echo "build_vsix: vscode-extension/package.json is version $ext_version, CMakeLists.txt $version" >&2
  exit 1
fi
if [ ! -f "$ext/node_modules/vscode-languageclient/package.json" ] || [ ! -x "$ext/node_modules/.bin/vsce" ]; then
  echo "build_vsix: npm ci in vscode-extension/"
  (cd "$ext" && npm ci --no-audit --no-fund --loglevel=error)
fi
stage="$out/vsix-stage"
rm -rf "$stage"
mkdir -p "$stage/bundled/bin"
(cd "$ext" && tar --exclude=./node_modules --exclude=./out --exclude=./bundled --exclude='./*.vsix' -cf - .) | tar -xf - -C "$stage"
cp -al "$ext/node_modules" "$stage/node_modules" 2>/dev/null || cp -a "$ext/node_modules" "$stage/node_modules"
install -m 0755 "$binary" "$stage/bundled/bin/stoker"
vsix="$out/stoker-linux-x64-$version.vsix"
rm -f "$vsix"
(cd "$stage" && npx --no-install tsc -p . && \
   npx --no-install vsce package --target linux-x64 --allow-missing-repository --skip-license --out "$vsix" </dev/null)
rm -rf "$stage"
echo "$vsix"
