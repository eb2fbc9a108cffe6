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
  trace        a tiny Kineto trace written here (GPU activity, a ProfilerStep, the host waits
               the reader classifies, python_function frames naming fuzz/trace.cpp's script),
               as JSON, gzip, a top-level array and with "Call stack" arguments; the JSON traces
               of tests/unit/trace_test.cpp; event_sync and cpu_only of ../shared/traces when
               present
The regression inputs of tests/fuzz-regressions/<target>/ are added to each corpus as well
(but those its OPEN file lists).
"""
import glob
import gzip
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


def tiny_trace():
    """One 1 ms step: a kernel, a pageable copy, the waits stoker classifies, Python frames."""
    ev = []

    def x(cat, name, ts, dur, pid=1, tid=1, **args):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
        if args:
            e["args"] = args
        ev.append(e)

    x("user_annotation", "ProfilerStep#3", 1000, 1000)
    x("python_function", "/p/train.py(12): <module>", 990, 1100)
    x("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1005, 200)
    x("cuda_runtime", "cudaMemcpyAsync", 1210, 30, correlation=7)
    x("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 1215, 40, pid=0, tid=7, correlation=7)
    x("kernel", "gemm", 1260, 300, pid=0, tid=7, correlation=8)
    x("python_function", "/p/train.py(8): read_loss", 1570, 100)
    x("cpu_op", "aten::item", 1575, 80)
    x("cpu_op", "aten::_local_scalar_dense", 1576, 78)
    x("cuda_runtime", "cudaStreamSynchronize", 1580, 60)
    x("cuda_runtime", "cudaMalloc", 1700, 20)
    x("cpu_op", "Optimizer.step#SGD.step", 1750, 150)
    x("gpu_memset", "Memset (Device)", 1910, 10, pid=0, tid=8)
    x("cuda_runtime", "cudaDeviceSynchronize", 1930, 40)
    x("gpu_user_annotation", "ProfilerStep#3", 1000, 1000, pid=0, tid=7)
    return ev


events = tiny_trace()
doc = {"schemaVersion": 1, "traceEvents": events}
write("trace", json.dumps(doc))
write("trace", gzip.compress(json.dumps(doc).encode(), mtime=0))
write("trace", json.dumps(events))  # a top-level array
stacked = [dict(e) for e in events if e["cat"] != "python_function"]
for e in stacked:
    if e["name"] in ("aten::item", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"):
        line = 8 if e["name"] == "aten::item" else 12
        e["args"] = dict(e.get("args", {}), **{"Call stack": "/p/train.py(%d): f;/p/train.py(16): <module>" % line})
write("trace", json.dumps({"traceEvents": stacked}))
for f in files("tests/unit/trace_test.cpp"):
    for m in re.finditer(r'R"\((\{.*?"traceEvents".*?)\)"', read(f).decode(), re.S):
        write("trace", m.group(1))
for name in ("event_sync.json.gz", "cpu_only_rank34.json.gz"):
    for d in (os.path.join(src, "../shared/traces"), "/work/shared/traces"):
        if os.path.isfile(os.path.join(d, name)):
            write("trace", read(os.path.join(d, name)))
            break

for target in ("python", "suppression", "config", "lsp", "cxx", "trace"):
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
