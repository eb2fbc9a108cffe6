#!/usr/bin/env bash
# The release workflow's and the Action's shell steps, here, with a local directory standing in
# for the GitHub release:
#  - packaging/release_assets.sh (what .github/workflows/release.yml runs on a tag) makes the
#    tarball, the wheel, the linux-x64 .vsix and SHA256SUMS from the self-contained binary;
#  - the Action's steps, taken from action.yml with a YAML parser, resolve the version from the
#    action's ref, install from file://RELEASE (checksum checked), skip the download on a cache
#    hit, refuse a corrupted asset and an unversioned ref, and run the check (SARIF) with the
#    LLVM/Clang/libstdc++ libraries hidden.
#   release_and_action_test.sh STATIC SOURCE_DIR WORK_DIR
set -euo pipefail
static="$(realpath "$1")" src="$(realpath "$2")" work="$3"
here="$src/tests/install"
rm -rf "$work" && mkdir -p "$work"
work="$(realpath "$work")"
fail() { echo "FAIL: $*" >&2; exit 1; }
version="$(sed -n 's/^project(stoker VERSION \([0-9][0-9A-Za-z.]*\).*/\1/p' "$src/CMakeLists.txt")"

RELEASE_TAG="v$version" "$src/packaging/release_assets.sh" "$static" "$work/release/v$version"
(cd "$work/release/v$version" && sha256sum -c SHA256SUMS)
RELEASE_TAG="v9.9.9" "$src/packaging/release_assets.sh" "$static" "$work/wrong-tag" 2>"$work/tag.err" \
  && fail "a tag that does not match the version was released"
grep -q "does not match" "$work/tag.err" || fail "no message for a mismatched tag"

# The Action's steps as the runner would run them (bash, GITHUB_OUTPUT, GITHUB_ACTION_PATH).
/usr/bin/python3 - "$src/action.yml" "$work/steps" <<'PY'
import os, sys, yaml
a = yaml.safe_load(open(sys.argv[1]))
os.makedirs(sys.argv[2])
for s in a["runs"]["steps"]:
    if "run" in s and "id" in s:
        open(os.path.join(sys.argv[2], s["id"] + ".sh"), "w").write(s["run"])
PY
export GITHUB_ACTION_PATH="$src" RUNNER_TOOL_CACHE="$work/toolcache"
export STOKER_RELEASE_BASE="file://$work/release"
out="$work/github_output"
step() { : > "$out"; GITHUB_OUTPUT="$out" bash -e "$work/steps/$1.sh"; }
get() { sed -n "s/^$1=//p" "$out" | tail -1; }

# version: the action's tag (v0.1.0), or the path GitHub checks actions out to.
STOKER_VERSION_INPUT="" GITHUB_ACTION_REF="v$version" step resolve
[ "$(get version)" = "$version" ] || fail "resolve from the action's tag"
: > "$out"
STOKER_VERSION_INPUT="" GITHUB_ACTION_REF="" GITHUB_ACTION_PATH="/home/runner/work/_actions/o/stoker/v$version" \
  GITHUB_OUTPUT="$out" bash "$src/.github/scripts/resolve-version.sh"
[ "$(get version)" = "$version" ] || fail "resolve from GITHUB_ACTION_PATH"
STOKER_VERSION_INPUT="" GITHUB_ACTION_REF="main" step resolve >"$work/resolve.out" 2>&1 && fail "a branch ref resolved"
grep -q "from 'main'.*set the \`version\` input" "$work/resolve.out" || fail "no message for a branch ref: $(cat "$work/resolve.out")"

dest="$work/toolcache/stoker/$version"
STOKER_INPUT="" STOKER_VERSION="$version" STOKER_DEST="$dest" STOKER_REPOSITORY=o/stoker step install
bin="$(get bin)"
[ "$bin" = "$dest/bin/stoker" ] && [ -x "$bin" ] || fail "install step: bin=$bin"
# A cache hit: the tool cache already holds it, nothing is downloaded (the release is gone).
STOKER_INPUT="" STOKER_VERSION="$version" STOKER_DEST="$dest" STOKER_RELEASE_BASE="file://$work/nowhere" \
  step install | tee "$work/cached.out"
grep -q "already in" "$work/cached.out" || fail "the cached binary was downloaded again"
# A corrupted download is refused.
cp -r "$work/release" "$work/bad"
printf 'x' >> "$work/bad/v$version/stoker-$version-x86_64-linux.tar.gz"
STOKER_INPUT="" STOKER_VERSION="$version" STOKER_DEST="$work/other" STOKER_RELEASE_BASE="file://$work/bad" \
  step install 2>"$work/bad.err" && fail "a corrupted asset was installed"
grep -q "checksum mismatch" "$work/bad.err" || fail "no checksum message: $(cat "$work/bad.err")"
[ ! -e "$work/other/bin/stoker" ] || fail "the corrupted binary was put in place"
# A version with no release.
STOKER_INPUT="" STOKER_VERSION="0.0.0" STOKER_DEST="$work/none" step install 2>"$work/none.err" && fail "0.0.0 installed"
grep -q "could not download" "$work/none.err" || fail "no message for a missing release"

# The run step with the installed binary, where the LLVM libraries are hidden.
# Outside this checkout (whose .gitignore ignores build/): the walk of "." must find train.py.
proj="$(mktemp -d)"
trap 'rm -rf "$proj"' EXIT
cp "$src/tests/lsp/starved_train.py" "$proj/train.py"
set +e
(cd "$proj" && GITHUB_OUTPUT="$out" STOKER_BIN="$bin" STOKER_FORMAT=sarif STOKER_PATHS=. STOKER_ARGS="" \
   STOKER_SARIF=stoker.sarif "$here/hide_libs.sh" bash -e "$work/steps/run.sh")
rc=$?
set -e
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || fail "run step: exit $rc"
grep -q "^exit-code=1$" "$out" || fail "run step: $(cat "$out")"
grep -q '"ruleId": "DL001"' "$proj/stoker.sarif" || fail "no DL001 in the SARIF"
echo "release assets made and checked; the Action installed v$version from them, cached, and reported DL001"
