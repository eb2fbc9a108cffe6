#!/usr/bin/env python3
"""Builds the seed corpora of the fuzz targets from the repository's own inputs (nothing is
copied into git): make_corpus.py SOURCE_DIR OUT_DIR writes OUT_DIR/<target>/ for each target.

  python       tests/fixtures/python, examples, tests/lsp, tests/support (*.py)
  suppression  every Python and C++/CUDA fixture and example
  config       the TOML texts of the configuration tests (R"toml(...)toml" in tests/unit and
               the string literals of config_test.cpp that hold a TOML text)
  lsp          one framed client session per example and fixture (initialize, didOpen, hover,
               codeAction, didChange, didClose, shutdown, exit)
  cxx          tests/fixtures/cxx, examples (*.cu, *.cpp)
The regression inputs of tests/fuzz-regressions/<target>/ are added to each corpus as well
(but those its OPEN file lists).
"""
import glob
import hashlib
import json
import os
import re
import shutil
import sys

src, out = sys.argv[1], sys.argv[2]


def files(*patterns):
    found = []
    for p in patterns:
        found += sorted(glob.glob(os.path.join(src, p), recursive=True))
    return [f for f in found if os.path.isfile(f)]


def write(target, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


if os.path.isdir(out):
    shutil.rmtree(out)

py = files("tests/fixtures/python/*.py", "examples/**/*.py", "tests/lsp/*.py", "tests/support/*.py")
cxx = files("tests/fixtures/cxx/*", "examples/**/*.cu", "examples/**/*.cpp")
for f in py:
    write("python", read(f))
for f in py + cxx:
    write("suppression", read(f))
for f in cxx:
    write("cxx", read(f))

for f in files("tests/unit/*.cpp"):
    code = read(f).decode()
    for m in re.finditer(r'R"toml\((.*?)\)toml"', code, re.S):
        write("config", m.group(1))
    if f.endswith("config_test.cpp"):
        # Ordinary string literals that hold a TOML text (a key assignment and a newline).
        for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', code):
            lit = m.group(1)
            if "=" in lit and "\\n" in lit:
                write("config", lit.encode().decode("unicode_escape"))


def frame(message):
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


for f in py + cxx:
    uri = "file:///nonexistent-stoker-fuzz/" + os.path.basename(f)
    text = read(f).decode()
    lang = "python" if f.endswith(".py") else ("cuda" if f.endswith(".cu") else "cpp")
    doc = {"textDocument": {"uri": uri}}
    pos = {"line": 3, "character": 4}
    rng = {"start": {"line": 0, "character": 0}, "end": {"line": 40, "character": 0}}
    session = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": None, "capabilities": {},
                    "initializationOptions": {"reportUnusedIgnores": True}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen",
         "params": {"textDocument": {"uri": uri, "languageId": lang, "version": 1, "text": text}}},
        {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": dict(doc, position=pos)},
        {"jsonrpc": "2.0", "id": 3, "method": "textDocument/codeAction",
         "params": dict(doc, range=rng, context={"diagnostics": []})},
        {"jsonrpc": "2.0", "method": "textDocument/didChange",
         "params": {"textDocument": {"uri": uri, "version": 2},
                    "contentChanges": [{"range": {"start": pos, "end": pos}, "text": "x"}]}},
        {"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration", "params": {"settings": {}}},
        {"jsonrpc": "2.0", "method": "textDocument/didClose", "params": doc},
        {"jsonrpc": "2.0", "id": 4, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    write("lsp", b"".join(frame(m) for m in session))

for target in ("python", "suppression", "config", "lsp", "cxx"):
    # Not README.md or OPEN, nor the inputs OPEN lists (crashes not fixed yet: a corpus that
    # crashes at once would stop every run; tests/fuzz-regressions/README.md).
    d = os.path.join(src, "tests/fuzz-regressions", target)
    skip = {"README.md", "OPEN"}
    if os.path.isfile(os.path.join(d, "OPEN")):
        skip |= {l.strip() for l in open(os.path.join(d, "OPEN")) if l.strip() and not l.startswith("#")}
    for f in files("tests/fuzz-regressions/%s/*" % target):
        if os.path.basename(f) not in skip:
            write(target, read(f))
    os.makedirs(os.path.join(out, target), exist_ok=True)
    print("%s: %d seeds" % (target, len(os.listdir(os.path.join(out, target)))))
