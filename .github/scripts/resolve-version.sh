#!/usr/bin/env bash
# action.yml, step "resolve": which stoker release the action installs.
#   STOKER_VERSION_INPUT  the `version` input ("" = the action's own tag)
#   GITHUB_ACTION_REF     the ref the workflow named in `uses: owner/stoker@REF` (may be empty in
#                         composite actions; then the ref is read from GITHUB_ACTION_PATH,
#                         .../_actions/OWNER/REPO/REF)
# Writes version=X.Y.Z to GITHUB_OUTPUT. A branch or commit ref has no release: the step fails
# and says to set `version`.
set -euo pipefail
v="${STOKER_VERSION_INPUT:-}"
if [ -z "$v" ]; then
  v="${GITHUB_ACTION_REF:-}"
  if [ -z "$v" ] && [ -n "${GITHUB_ACTION_PATH:-}" ]; then
    v="$(basename "$GITHUB_ACTION_PATH")"
  fi
fi
v="${v#refs/tags/}"
v="${v#v}"
if ! [[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+([.-][0-9A-Za-z.]+)?$ ]]; then
  echo "::error title=stoker::cannot tell which stoker release to install from '${STOKER_VERSION_INPUT:-${GITHUB_ACTION_REF:-$(basename "${GITHUB_ACTION_PATH:-?}")}}': use the action at a release tag (uses: .../stoker@v0.1.0) or set the \`version\` input"
  exit 2
fi
echo "version=$v" >> "$GITHUB_OUTPUT"
echo "stoker $v"
