#!/usr/bin/env python3
"""Checks the measured timeline of stoker's HTML report (`--profile TRACE`) as Chromium rendered it.

usage: check_measured.py REPORT_HTML DOM_HTML SCREENSHOT_PNG EXPECT_JSON

EXPECT_JSON is tests/trace/expect_profile.py's reading of the trace (Python's gzip and json,
not stoker): its steps give the representative step, the one of median duration (the shorter
of the two middle ones), and that step's GPU busy time.

- REPORT_HTML is self-contained (as check_report.py checks it).
- DOM_HTML has one measured timeline, inside the hot loop's section and after its now/after
  bars; it names the median step with its duration and busy time; its GPU-busy rectangles cover
  the step's busy share and, with the idle ones, the whole step; the host events during idle
  time include the trace's long optimizer step; the idle list names what no finding explains.
- SCREENSHOT_PNG is not blank: the timeline's GPU green and the optimizer's colour are drawn.
"""
import json
import os
import re
import sys

from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_report import fail, parse  # noqa: E402


def main():
    report, dom_path, shot, expect_path = sys.argv[1:5]
    raw = parse(report)
    for tag, a in raw.elements:
        if tag in ("script", "iframe", "img", "object", "embed", "link", "audio", "video", "source"):
            fail(f"external or active element <{tag}>")
        for attr in ("src", "href", "srcset", "data"):
            v = a.get(attr)
            if v and not v.startswith("#"):
                fail(f"<{tag} {attr}={v!r}> leaves the page")
    with open(expect_path) as f:
        want = json.load(f)
    steps = want["steps"]
    order = sorted(range(len(steps)), key=lambda i: steps[i]["duration_ms"])
    median = steps[order[(len(order) - 1) // 2]]

    dom = parse(dom_path)
    seq = [(t, a) for t, a in dom.elements]
    timelines = [i for i, (t, a) in enumerate(seq) if t == "div" and a.get("data-timeline") == "measured"]
    if len(timelines) != 1:
        fail(f"expected one measured timeline, found {len(timelines)}")
    at = timelines[0]
    tl = seq[at][1]
    loops = [i for i, (t, a) in enumerate(seq) if t == "div" and (a.get("class") or "") == "loop" and i < at]
    bars = [i for i, (t, a) in enumerate(seq) if t == "div" and (a.get("class") or "") == "bar" and i < at]
    if not loops or len(bars) < 2 or bars[-1] < loops[-1]:
        fail("the timeline is not in a hot loop's section after its bars")
    if tl.get("data-step") != median["name"]:
        fail(f"timeline of {tl.get('data-step')}, the median step is {median['name']}")
    if abs(float(tl["data-step-ms"]) - median["duration_ms"]) > 1e-3:
        fail(f"step {tl['data-step-ms']} ms, expected {median['duration_ms']}")
    if abs(float(tl["data-busy-ms"]) - median["busy_ms"]) > 1e-3:
        fail(f"busy {tl['data-busy-ms']} ms, expected {median['busy_ms']}")
    # The rectangles of the timeline's SVG (up to the next element outside it).
    busy = idle = 0.0
    kinds = set()
    n = 0
    for t, a in seq[at + 1:]:
        if t not in ("svg", "rect", "title"):
            break
        if t != "rect":
            continue
        n += 1
        w = float(a["width"])
        if "busy" in a.get("class", ""):
            busy += w
        else:
            idle += w
            kinds.add(a.get("data-kind"))
    share = median["busy_ms"] / median["duration_ms"]
    if abs(busy / 1000 - share) > 0.02:
        fail(f"GPU busy drawn over {busy / 10:.1f}% of the strip, measured {100 * share:.1f}%")
    if abs((busy + idle) / 1000 - 1) > 0.02:
        fail(f"busy and idle cover {(busy + idle) / 10:.1f}% of the step")
    if "optimizer" not in kinds:
        fail(f"no optimizer step among the host events drawn: {sorted(k for k in kinds if k)}")
    text = " ".join(dom.text)
    if not re.search(r"GPU idle \d+% of the step \([\d.]+ ms\) while the host runs Optimizer\.step#Shampoo\.step", text):
        fail("the idle list does not name the optimizer step no finding explains")

    img = Image.open(shot).convert("RGB")
    w, h = img.size
    px = img.load()
    green = purple = inked = 0
    for y in range(0, h, 2):
        for x in range(0, w, 2):
            r, g, b = px[x, y]
            inked += (r, g, b) != (255, 255, 255)
            green += abs(r - 0x2F) < 12 and abs(g - 0x9E) < 12 and abs(b - 0x44) < 12
            purple += abs(r - 0xAE) < 12 and abs(g - 0x3E) < 12 and abs(b - 0xC9) < 12
    if inked / ((w // 2) * (h // 2)) < 0.03:
        fail("screenshot nearly blank")
    if green < 50 or purple < 20:
        fail(f"timeline not drawn: {green} green, {purple} optimizer pixels")
    print(f"ok: measured timeline of {median['name']} ({n} rectangles), {green} green and {purple} optimizer pixels")


if __name__ == "__main__":
    main()
