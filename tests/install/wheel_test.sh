#!/usr/bin/env bash
# The wheel (packaging/build_wheel.py) from the self-contained binary: built with no network,
# installed with pip into a fresh virtual environment with no index, and used from there with
# the LLVM, Clang, libgit2 and libstdc++ shared libraries hidden: `stoker check` on a starved
# script, `python -m stoker`, and `stoker server` through initialize, diagnostics and shutdown.
#   wheel_test.sh STATIC SOURCE_DIR WORK_DIR
set -euo pipefail
static="$(realpath "$1")" src="$(realpath "$2")" work="$3"
here="$src/tests/install"
rm -rf "$work" && mkdir -p "$work"
work="$(realpath "$work")"
fail() { echo "FAIL: $*" >&2; exit 1; }
version="$(sed -n 's/^project(stoker VERSION \([0-9][0-9A-Za-z.]*\).*/\1/p' "$src/CMakeLists.txt")"

python3 "$src/packaging/build_wheel.py" "$static" "$work/dist"
whl="$(ls "$work"/dist/stoker-"$version"-py3-none-manylinux_2_*_x86_64.whl)"
echo "wheel: $(basename "$whl") ($(stat -c %s "$whl") bytes)"
# Reproducible: a second build is byte-identical.
python3 "$src/packaging/build_wheel.py" "$static" "$work/dist2" >/dev/null
cmp "$whl" "$work/dist2/$(basename "$whl")" || fail "the wheel is not reproducible"
listing="$(python3 -m zipfile -l "$whl")"
grep -q "stoker-$version.data/scripts/stoker" <<<"$listing" || fail "no binary in .data/scripts"
grep -q "stoker-$version.dist-info/RECORD" <<<"$listing" || fail "no RECORD"

python3 -m venv "$work/venv"
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
"$work/venv/bin/pip" install --no-index "$whl"
[ -x "$work/venv/bin/stoker" ] || fail "pip did not install venv/bin/stoker as an executable"
grep -qx "Version: $version" <<<"$("$work/venv/bin/pip" show stoker)" || fail "pip show"

cp "$src/tests/lsp/starved_train.py" "$work/train.py"
set +e
"$here/hide_libs.sh" env PATH="$work/venv/bin:/usr/bin:/bin" stoker check --no-color "$work/train.py" >"$work/check.out" 2>&1
rc=$?
set -e
cat "$work/check.out"
[ "$rc" = 77 ] && exit 77
[ "$rc" = 1 ] || fail "venv stoker check: exit $rc, expected 1"
grep -q "train.py:.*DL001" "$work/check.out" || fail "no DL001 from the wheel's stoker"
[ "$("$here/hide_libs.sh" "$work/venv/bin/python" -m stoker version)" = "stoker $version" ] || fail "python -m stoker"
"$here/hide_libs.sh" "$work/venv/bin/python" "$here/lsp_roundtrip.py" "$work/venv/bin/stoker" "$work/train.py" --expect DL001
# pip uninstall removes the binary again (it is in RECORD).
"$work/venv/bin/pip" uninstall -y stoker >/dev/null
[ ! -e "$work/venv/bin/stoker" ] || fail "pip uninstall left venv/bin/stoker"
echo "wheel: installed offline, checked, served, uninstalled"
