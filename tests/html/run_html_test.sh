#!/bin/sh
# The HTML report in a real browser: stoker writes the page for two starved scripts, headless
# Chromium renders it (--dump-dom: the DOM after parsing and layout; --screenshot: the pixels),
# and check_report.py checks the page is self-contained, the DOM has a bar per loop and state
# and the findings ranked by gain with working links, and the screenshot is not blank.
# Usage: run_html_test.sh STOKER_BINARY SOURCE_DIR
set -eu
stoker=$1
src=$2
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "chromium not installed (setup.sh installs it with the test packages)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$src/examples/image_classifier.py" "$src/tests/lsp/starved_train.py" "$tmp/"
cd "$tmp"
rc=0
"$stoker" check --no-cache --output-format html -o report.html image_classifier.py starved_train.py || rc=$?
[ "$rc" -eq 1 ] || { echo "stoker exited $rc (expected 1: findings)" >&2; exit 1; }
"$stoker" check --no-cache --output-format text image_classifier.py starved_train.py > report.txt || true
# Chromium needs a writable home and, as root in a container, no sandbox.
export HOME="$tmp/home"
mkdir -p "$HOME"
flags="--headless --no-sandbox --disable-gpu --no-first-run --disable-extensions --user-data-dir=$tmp/profile"
timeout 120 "$browser" $flags --dump-dom "file://$tmp/report.html" > dom.html 2> chromium-dom.log || {
  cat chromium-dom.log >&2; exit 1; }
timeout 120 "$browser" $flags --hide-scrollbars --window-size=1280,1400 --screenshot="$tmp/shot.png" \
  "file://$tmp/report.html" > chromium-shot.log 2>&1 || { cat chromium-shot.log >&2; exit 1; }
"${PYTHON:-/usr/bin/python3}" "$src/tests/html/check_report.py" report.html dom.html shot.png report.txt
