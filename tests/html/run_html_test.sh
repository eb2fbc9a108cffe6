#!/bin/sh
# The HTML report in a real browser: stoker writes the page for two starved scripts, headless
# Chromium renders it (--dump-dom: the DOM after parsing and layout; --screenshot: the pixels),
# and check_report.py checks the page is self-contained, the DOM has a bar per loop and state
# and the findings ranked by gain with working links, and the screenshot is not blank. Then the
# same with `--profile` on a real GPU trace (../shared/traces; skipped when absent):
# check_measured.py checks the measured timeline of the loop's median step.
# Usage: run_html_test.sh STOKER_BINARY SOURCE_DIR [TRACES_DIR]
set -eu
stoker=$1
src=$2
traces=${3:-$src/../shared/traces}
[ -d "$traces" ] || traces=/work/shared/traces
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

trace=$traces/sampled_rank0.json.gz
if [ ! -f "$trace" ]; then
  echo "no real trace at $trace: the measured timeline is not checked"
  exit 0
fi
cat > measured.py <<'PY'
import torch
model = torch.nn.Linear(8, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x in loader:
    loss = model(x.cuda(non_blocking=True)).sum()
    loss.backward()
    opt.step()
    print(loss.item())
PY
rc=0
"$stoker" check --no-cache --output-format html -o measured.html --profile "$trace" measured.py || rc=$?
[ "$rc" -eq 1 ] || { echo "stoker --profile exited $rc (expected 1: findings)" >&2; exit 1; }
"${PYTHON:-/usr/bin/python3}" "$src/tests/trace/expect_profile.py" "$trace" > expect.json
timeout 120 "$browser" $flags --dump-dom "file://$tmp/measured.html" > measured-dom.html 2> chromium-dom.log || {
  cat chromium-dom.log >&2; exit 1; }
timeout 120 "$browser" $flags --hide-scrollbars --window-size=1280,1400 --screenshot="$tmp/measured.png" \
  "file://$tmp/measured.html" > chromium-shot.log 2>&1 || { cat chromium-shot.log >&2; exit 1; }
"${PYTHON:-/usr/bin/python3}" "$src/tests/html/check_measured.py" measured.html measured-dom.html measured.png expect.json
