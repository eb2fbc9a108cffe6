#!/usr/bin/env bash
# The VS Code platform package (packaging/build_vsix.sh: vsce package --target linux-x64) with
# the self-contained binary in extension/bundled/bin/stoker: unpacked with unzip, its manifest
# names the target, and the bundled server, with the LLVM/Clang/libstdc++ libraries hidden, goes
# through initialize, didOpen of a starved script -> publishDiagnostics with findings, shutdown.
#   vsix_bundled_test.sh STATIC SOURCE_DIR WORK_DIR
set -euo pipefail
static="$(realpath "$1")" src="$(realpath "$2")" work="$3"
here="$src/tests/install"
rm -rf "$work" && mkdir -p "$work"
work="$(realpath "$work")"
fail() { echo "FAIL: $*" >&2; exit 1; }
version="$(sed -n 's/^project(stoker VERSION \([0-9][0-9A-Za-z.]*\).*/\1/p' "$src/CMakeLists.txt")"

"$src/packaging/build_vsix.sh" "$static" "$work"
vsix="$work/stoker-linux-x64-$version.vsix"
echo "vsix: $(stat -c %s "$vsix") bytes"
unzip -q "$vsix" -d "$work/unpacked"
bundled="$work/unpacked/extension/bundled/bin/stoker"
[ -x "$bundled" ] || fail "no executable extension/bundled/bin/stoker in the .vsix"
cmp "$bundled" "$static" || fail "the bundled binary is not the built one"
grep -q 'TargetPlatform="linux-x64"' "$work/unpacked/extension.vsixmanifest" || fail "the manifest names no linux-x64 target"
[ -f "$work/unpacked/extension/out/extension.js" ] || fail "no compiled extension"
grep -q "bundled/bin/stoker" "$work/unpacked/extension/out/extension.js" || fail "the extension does not look for the bundled binary"
cp "$src/tests/lsp/starved_train.py" "$work/train.py"
"$here/hide_libs.sh" python3 "$here/lsp_roundtrip.py" "$bundled" "$work/train.py" --expect DL001
echo "vsix: the bundled server reported findings with the LLVM libraries hidden"
