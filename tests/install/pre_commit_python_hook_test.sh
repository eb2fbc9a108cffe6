#!/usr/bin/env bash
# pre-commit for a new user: this repository as a hook repository with the `language: python`
# hooks (.pre-commit-hooks.yaml, pyproject.toml, packaging/pre_commit/backend.py). The real
# pre-commit, a clean cache (PRE_COMMIT_HOME in the work dir), offline: PIP_NO_INDEX, and
# PIP_FIND_LINKS naming the directory with the stoker wheel (the hook package depends on it).
# pre-commit builds the hook environment with Debian's virtualenv seeded from
# /usr/share/python-wheels. The commits run with the LLVM/Clang/libstdc++ libraries hidden.
#   pre_commit_python_hook_test.sh STATIC SOURCE_DIR WORK_DIR
set -euo pipefail
static="$(realpath "$1")" src="$(realpath "$2")" work="$3"
here="$src/tests/install"
rm -rf "$work" && mkdir -p "$work"
work="$(realpath "$work")"
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 "$src/packaging/build_wheel.py" "$static" "$work/wheels"
export HOME="$work/home" PRE_COMMIT_HOME="$work/pre-commit-cache" GIT_CONFIG_NOSYSTEM=1
export PIP_NO_INDEX=1 PIP_FIND_LINKS="$work/wheels" PIP_DISABLE_PIP_VERSION_CHECK=1
export VIRTUALENV_NO_DOWNLOAD=1 VIRTUALENV_NO_PERIODIC_UPDATE=1
# No stoker on PATH: the hook must bring its own.
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
! command -v stoker >/dev/null || fail "a stoker on PATH ($(command -v stoker)) would hide what the hook installs"
mkdir -p "$HOME"
gitc() { git -C "$1" -c user.email=t@example.com -c user.name=t -c commit.gpgsign=false "${@:2}"; }

hooks="$work/hooks" proj="$work/proj"
mkdir -p "$hooks/packaging/pre_commit" "$proj"
cp "$src/.pre-commit-hooks.yaml" "$src/pyproject.toml" "$src/CMakeLists.txt" "$hooks/"
cp "$src/packaging/pre_commit/backend.py" "$hooks/packaging/pre_commit/"
git init -q -b main "$hooks" && gitc "$hooks" add -A && gitc "$hooks" commit -q -m hooks
rev="$(git -C "$hooks" rev-parse HEAD)"
git init -q -b main "$proj"
cat > "$proj/.pre-commit-config.yaml" <<YAML
repos:
  - repo: $hooks
    rev: $rev
    hooks:
      - id: stoker
YAML
(cd "$proj" && pre-commit install)
gitc "$proj" add .pre-commit-config.yaml && gitc "$proj" commit -q -m config

cp "$src/tests/lsp/starved_train.py" "$proj/train.py"
gitc "$proj" add train.py
set +e
(cd "$proj" && "$here/hide_libs.sh" git -c user.email=t@example.com -c user.name=t -c commit.gpgsign=false commit -m starved) >"$work/commit.out" 2>&1
rc=$?
set -e
cat "$work/commit.out"
[ "$rc" = 77 ] && exit 77
[ "$rc" != 0 ] || fail "the starved script was committed"
grep -q "DL001" "$work/commit.out" || fail "no DL001 from the hook"
[ "$(git -C "$proj" rev-list --count HEAD)" = 1 ] || fail "a commit went through"
env_bin="$(ls -d "$PRE_COMMIT_HOME"/repo*/py_env-*/bin | head -1)"
[ -x "$env_bin/stoker" ] || fail "no stoker in the hook environment ($env_bin)"
echo "hook environment: $env_bin/stoker ($("$env_bin/stoker" version))"

# A well-fed script (examples/well_fed.py, no findings) commits.
git -C "$proj" rm -q --cached train.py && rm "$proj/train.py"
cp "$src/examples/well_fed.py" "$proj/well_fed.py"
gitc "$proj" add well_fed.py
(cd "$proj" && "$here/hide_libs.sh" git -c user.email=t@example.com -c user.name=t -c commit.gpgsign=false commit -m well-fed) \
  >"$work/commit2.out" 2>&1 || { cat "$work/commit2.out"; fail "the well-fed script was rejected"; }
grep -q "stoker.*Passed" "$work/commit2.out" || { cat "$work/commit2.out"; fail "the hook did not run on the well-fed script"; }
[ "$(git -C "$proj" rev-list --count HEAD)" = 2 ] || fail "the well-fed commit is missing"
echo "pre-commit (language python): offline from a clean cache, rejected the starved script, accepted the well-fed one"
