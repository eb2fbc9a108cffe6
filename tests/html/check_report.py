#!/usr/bin/env python3
"""Checks stoker's HTML report as Chromium rendered it.

usage: check_report.py REPORT_HTML DOM_HTML SCREENSHOT_PNG REPORT_TXT

- REPORT_HTML (what stoker wrote) is self-contained: no scripts, no external style sheets,
  images, fonts or frames, no url() or @import in its style.
- DOM_HTML (Chromium's --dump-dom) has the project headline, two bars (now, after) per hot loop
  whose segments fit in the bar, the findings ranked by gain (descending), and every in-page link
  pointing at an element that exists; the loops and the headline agree with the text report.
- SCREENSHOT_PNG is not blank: many pixels differ from the background, and the bars' GPU colour
  is present.
"""
import html.parser
import re
import sys

from PIL import Image


class Collect(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.elements = []  # (tag, attrs dict)
        self.ids = set()
        self.text = []
        self.style = []
        self._in_style = False
        self.stack = []
        self.gains = []  # text of td.gain cells, in order
        self._gain = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a))
        if "id" in a:
            self.ids.add(a["id"])
        self._in_style = tag == "style"
        if tag == "td" and "gain" in (a.get("class") or "").split():
            self._gain = ""

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False
        if tag == "td" and self._gain is not None:
            self.gains.append(self._gain.strip())
            self._gain = None

    def handle_data(self, data):
        if self._in_style:
            self.style.append(data)
        else:
            self.text.append(data)
        if self._gain is not None:
            self._gain += data


def parse(path):
    p = Collect()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    return p


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main():
    report, dom_path, shot, text_path = sys.argv[1:5]
    raw = parse(report)
    # Self-contained.
    for tag, a in raw.elements:
        if tag in ("script", "iframe", "img", "object", "embed", "link", "audio", "video", "source"):
            fail(f"external or active element <{tag}>")
        for attr in ("src", "href", "srcset", "data"):
            v = a.get(attr)
            if v and not v.startswith("#"):
                fail(f"<{tag} {attr}={v!r}> leaves the page")
    style = "".join(raw.style)
    if re.search(r"url\s*\(|@import", style):
        fail("style loads something")

    dom = parse(dom_path)
    text = " ".join(dom.text)
    if "Estimated GPU busy" not in text or "after all fixes" not in text:
        fail("no project headline in the DOM")
    loops = [a for t, a in dom.elements if t == "div" and (a.get("class") or "") == "loop"]
    if len(loops) < 2:
        fail(f"expected a section per hot loop (2 scripts), found {len(loops)}")
    bars = [a for t, a in dom.elements if t == "div" and (a.get("class") or "") == "bar"]
    if len(bars) != 2 * len(loops):
        fail(f"{len(bars)} bars for {len(loops)} loops (want now and after per loop)")
    if [b.get("data-bar") for b in bars] != ["now", "after"] * len(loops):
        fail("bars are not now/after pairs")
    # Segment widths within each bar add up to at most 100%.
    widths, current = [], None
    for t, a in dom.elements:
        if t == "div" and (a.get("class") or "") == "bar":
            current = []
            widths.append(current)
        elif t == "span" and current is not None and "width:" in (a.get("style") or ""):
            current.append(float(re.search(r"width:\s*([\d.]+)%", a["style"]).group(1)))
        elif t == "div" and current is not None and (a.get("class") or "") != "bar":
            current = None
    for w in widths:
        if not w or sum(w) > 100.01:
            fail(f"bar segments {w}")
    for now, after in zip(widths[0::2], widths[1::2]):
        if sum(after) > sum(now) + 1e-6:
            fail("a loop's step is longer after its fixes than now")
    # Findings ranked by gain.
    def key(g):
        # "+3..12 pp" (GPU busy) or "step -7..57%" (a compute speedup's step time).
        m = re.match(r"\+(\d+)\.\.(\d+) pp", g) or re.match(r"step -(\d+)\.\.(\d+)%", g)
        return (int(m.group(1)) + int(m.group(2))) if m else -1
    keys = [key(g) for g in dom.gains]
    if not keys or keys != sorted(keys, reverse=True):
        fail(f"findings not ranked by gain: {dom.gains}")
    rows = [a for t, a in dom.elements if t == "tr" and (a.get("class") or "") == "finding"]
    if len(rows) < 8:
        fail(f"only {len(rows)} findings in the table")
    links = [a["href"][1:] for t, a in dom.elements if t == "a" and a.get("href", "").startswith("#")]
    if not links:
        fail("no links between loops and findings")
    for l in links:
        if l not in dom.ids:
            fail(f"link to missing #{l}")
    if not any(l.startswith("loop-") for l in links) or not any(l.startswith("finding-") for l in links):
        fail("links must go both ways (loop -> finding, finding -> loop)")
    # The same numbers as the text report.
    with open(text_path, encoding="utf-8") as f:
        txt = f.read()
    m = re.search(r"Project: est\. GPU busy (\d+)% now .*?, (\d+)% after all fixes", txt)
    if not m:
        fail("no project line in the text report")
    head = [a for t, a in dom.elements if a.get("id") == "project-busy"][0]
    if round(100 * float(head["data-busy-now"])) != int(m.group(1)) or round(100 * float(head["data-busy-after"])) != int(m.group(2)):
        fail(f"HTML headline {head} disagrees with the text report {m.group(0)}")

    # Not blank: pixels that differ from the white background, and the GPU segments' green.
    img = Image.open(shot).convert("RGB")
    w, h = img.size
    px = img.load()
    inked = green = 0
    for y in range(0, h, 2):
        for x in range(0, w, 2):
            r, g, b = px[x, y]
            if (r, g, b) != (255, 255, 255):
                inked += 1
            if abs(r - 0x2F) < 12 and abs(g - 0x9E) < 12 and abs(b - 0x44) < 12:
                green += 1
    total = (w // 2) * (h // 2)
    share = inked / total
    if share < 0.03:
        fail(f"screenshot nearly blank: {share:.1%} non-background pixels")
    if green < 50:
        fail(f"no bar colour in the screenshot ({green} green pixels)")
    print(f"ok: {len(loops)} loops, {len(rows)} findings, {len(links)} links, "
          f"{share:.1%} non-background pixels, {green} bar pixels (of {total} sampled)")


if __name__ == "__main__":
    main()
