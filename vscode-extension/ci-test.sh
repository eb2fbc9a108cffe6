#!/usr/bin/env bash
# ctest: install the extension's npm dependencies from the lock file (if missing), compile with
# tsc, run the unit tests with node's test runner, package a .vsix with @vscode/vsce and check
# that it holds the compiled extension and its runtime dependency.
# Usage: ci-test.sh OUT_DIR
set -euo pipefail
cd "$(dirname "$0")"
out="${1:-.}"
mkdir -p "$out"
if [ ! -f node_modules/vscode-languageclient/package.json ] || [ ! -x node_modules/.bin/vsce ]; then
  echo "vscode-extension: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
npm run --silent build
node --test out/test/
rm -f "$out/stoker.vsix"
npx --no-install vsce package --allow-missing-repository --skip-license --out "$out/stoker.vsix" </dev/null
listing="$(unzip -l "$out/stoker.vsix")"
for f in extension/package.json extension/out/extension.js extension/out/serverCommand.js \
         extension/node_modules/vscode-languageclient/package.json extension.vsixmanifest; do
  grep -q " $f\$" <<<"$listing" || { echo "missing from the .vsix: $f" >&2; exit 1; }
done
if grep -qE " extension/(src/|out/test/|node_modules/typescript/)" <<<"$listing"; then
  echo "the .vsix contains sources, tests or dev dependencies" >&2
  exit 1
fi
echo "vscode-extension: packaged $out/stoker.vsix"
