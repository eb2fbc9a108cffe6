#!/usr/bin/env bash
# action.yml, step "install": puts the released self-contained binary of one version in DEST/bin.
#   install-stoker.sh VERSION DEST
#   STOKER_RELEASE_BASE  where the release assets are (default: this action's GitHub releases,
#                        https://github.com/$STOKER_REPOSITORY/releases/download); the tests use a
#                        file:// directory laid out as BASE/vVERSION/ASSET
# Downloads stoker-VERSION-x86_64-linux.tar.gz and SHA256SUMS (made by packaging/release_assets.sh),
# checks the checksum, unpacks, runs `stoker version`. Writes bin=PATH to GITHUB_OUTPUT if set.
# Skips the download when DEST/bin/stoker is already that version (a cache hit).
set -euo pipefail
version="${1:?usage: install-stoker.sh VERSION DEST}"
dest="${2:?usage: install-stoker.sh VERSION DEST}"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=x86_64-linux ;;
  *) echo "::error title=stoker::no released stoker binary for $(uname -s) $(uname -m) (linux x86_64 only); pass \`stoker:\` the path of one you built" >&2
     exit 2 ;;
esac
base="${STOKER_RELEASE_BASE:-https://github.com/${STOKER_REPOSITORY:-${GITHUB_ACTION_REPOSITORY:-}}/releases/download}"
asset="stoker-$version-$platform.tar.gz"
bin="$dest/bin/stoker"

if [ -x "$bin" ] && [ "$("$bin" version 2>/dev/null || true)" = "stoker $version" ]; then
  echo "stoker $version already in $dest (cache)"
else
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  for f in "$asset" SHA256SUMS; do
    if ! curl -fsSL --retry 3 -o "$tmp/$f" "$base/v$version/$f"; then
      echo "::error title=stoker::could not download $base/v$version/$f (is there a release v$version?)" >&2
      exit 2
    fi
  done
  expected="$(awk -v a="$asset" '$2 == a || $2 == "*" a { print $1 }' "$tmp/SHA256SUMS")"
  actual="$(sha256sum "$tmp/$asset" | cut -d' ' -f1)"
  if [ -z "$expected" ] || [ "$expected" != "$actual" ]; then
    echo "::error title=stoker::checksum mismatch for $asset (SHA256SUMS: ${expected:-none}, downloaded: $actual)" >&2
    exit 2
  fi
  mkdir -p "$dest/bin"
  tar -xzf "$tmp/$asset" -C "$tmp"
  install -m 0755 "$tmp/stoker-$version-$platform/stoker" "$bin"
fi
got="$("$bin" version)"
if [ "$got" != "stoker $version" ]; then
  echo "::error title=stoker::$bin says '$got', expected 'stoker $version'" >&2
  exit 2
fi
echo "$got: $bin"
[ -z "${GITHUB_OUTPUT:-}" ] || echo "bin=$bin" >> "$GITHUB_OUTPUT"
