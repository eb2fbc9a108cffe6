#!/usr/bin/env bash
# The self-contained binary (build/stoker-static, docs/install.md):
#  1. needs no shared library but glibc's (readelf -d), no RUNPATH, and names the oldest glibc it
#     runs on (the newest GLIBC_ symbol version, objdump -T);
#  2. where LLVM, Clang, libgit2, tree-sitter and libstdc++ are hidden (hide_libs.sh), the dynamic
#     build does not start (the control) while stoker-static checks a starved Python script and the
#     CUDA example (its standard includes need clang's builtin headers: embedded), prints a rule
#     document (embedded) and serves LSP;
#  3. in a chroot holding only the binary and glibc, it checks Python and header-free CUDA.
#   static_binary_test.sh STATIC DYNAMIC SOURCE_DIR WORK_DIR
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"  # chroot, mount: ctest may run without sbin on PATH
static="$(realpath "$1")" dynamic="$(realpath "$2")" src="$(realpath "$3")" work="$4"
here="$src/tests/install"
rm -rf "$work" && mkdir -p "$work"
work="$(realpath "$work")"
fail() { echo "FAIL: $*" >&2; exit 1; }

needed="$(readelf -d "$static" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')"
echo "NEEDED: $needed"
for lib in $needed; do
  case "$lib" in libc.so.6|libm.so.6|ld-linux-x86-64.so.2) ;; *) fail "stoker-static needs $lib" ;; esac
done
! readelf -d "$static" | grep -qE 'RPATH|RUNPATH' || fail "stoker-static has an RPATH/RUNPATH"
glibc="$(objdump -T "$static" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)"
echo "newest glibc symbol version: $glibc"
[ -n "$glibc" ] || fail "no GLIBC_ symbol versions found"
echo "size: $(stat -c %s "$static") bytes"

cp "$src/tests/lsp/starved_train.py" "$work/train.py"
cp "$src/examples/cuda/train_mlp.cu" "$work/train_mlp.cu"

set +e
"$here/hide_libs.sh" "$dynamic" version >"$work/dyn.out" 2>&1
rc=$?
set -e
[ "$rc" = 77 ] && exit 77
echo "dynamic build with the libraries hidden: exit $rc ($(head -c 200 "$work/dyn.out"))"
[ "$rc" -ne 0 ] || fail "the dynamic build ran with the libraries hidden: the hiding does not work"

hidden() { "$here/hide_libs.sh" "$@"; }
# The same findings and parse errors as the dynamic build with its libraries in place: the
# embedded clang builtin headers stand in for /usr/lib/llvm-22/lib/clang/*/include.
args=(check --no-color --output-format concise --show-parse-errors "$work/train.py" "$work/train_mlp.cu")
set +e
"$dynamic" "${args[@]}" >"$work/expected.out" 2>&1
hidden "$static" "${args[@]}" >"$work/check.out" 2>&1
rc=$?
set -e
cat "$work/check.out"
[ "$rc" = 1 ] || fail "stoker-static check: exit $rc, expected 1 (findings)"
grep -q "train.py:.*DL001" "$work/check.out" || fail "no DL001 on the starved Python script"
grep -q "train_mlp.cu:.*CU001" "$work/check.out" || fail "no CU001 on the CUDA example"
diff "$work/expected.out" "$work/check.out" || fail "stoker-static (libraries hidden) and stoker differ"
hidden "$static" rule DL001 >"$work/rule.out" || fail "stoker rule DL001 failed"
grep -q "^# synchronous-data-loader (DL001)" "$work/rule.out" || fail "no embedded rule document"
hidden python3 "$here/lsp_roundtrip.py" "$static" "$work/train.py" --expect DL001

# A root with nothing but the binary and glibc (no /usr/include, no LLVM, no libstdc++).
root="$work/chroot"
mkdir -p "$root/bin" "$root/lib64" "$root/lib/x86_64-linux-gnu" "$root/src" "$root/tmp"
cp "$static" "$root/bin/stoker"
# ldd shows where the loader finds each (and nothing else: "not found" would fail above).
ldd "$static" | tee "$work/ldd.out"
! grep -q "not found" "$work/ldd.out" || fail "ldd: a library is not found"
for lib in libc.so.6 libm.so.6; do
  real="$(awk -v l="$lib" '$1 == l { print $3 }' "$work/ldd.out")"
  [ -f "$real" ] || fail "ldd names no file for $lib"
  cp -L "$real" "$root/lib/x86_64-linux-gnu/$lib"
done
cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
[ "$(grep -c '=>' "$work/ldd.out")" = 2 ] || fail "ldd lists other libraries than libc and libm"
cp "$work/train.py" "$root/src/train.py"
cat > "$root/src/step.cu" <<'CU'
// Header-free CUDA: only the runtime API (the embedded shim).
#include <cuda_runtime.h>
__global__ void k(float* x) { x[threadIdx.x] *= 2.f; }
void train(float* d, int steps) {
  for (int s = 0; s < steps; ++s) {
    float* scratch;
    cudaMalloc(&scratch, 1 << 20);
    k<<<1, 256>>>(d);
    cudaDeviceSynchronize();
    cudaFree(scratch);
  }
}
CU
echo "chroot: $(cd "$root" && find . -type f | sort | tr '\n' ' ')"
set +e
unshare -m --propagation private chroot "$root" /bin/stoker check --no-color /src/train.py /src/step.cu >"$work/chroot.out" 2>&1
rc=$?
set -e
cat "$work/chroot.out"
[ "$rc" = 1 ] || fail "stoker in the chroot: exit $rc, expected 1 (findings)"
grep -q "train.py:.*DL001" "$work/chroot.out" || fail "no DL001 in the chroot"
grep -q "step.cu:.*CU00" "$work/chroot.out" || fail "no CU finding in the chroot"
echo "stoker-static: self-contained (glibc >= ${glibc#GLIBC_})"
