#!/usr/bin/env python3
"""Drive `STOKER server` over pipes: initialize, didOpen of FILE, wait for its publishDiagnostics,
shutdown, exit. Prints the diagnostic codes; fails unless every code in --expect is among them and
the server exits 0. Used by the wheel, .vsix and static-binary tests (tests/install/)."""
import argparse
import json
import os
import pathlib
import select
import subprocess
import sys
import time


def send(proc, msg):
    body = json.dumps(msg).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


class Reader:
    def __init__(self, stream, deadline):
        self.fd = stream.fileno()
        self.buf = b""
        self.deadline = deadline

    def _more(self):
        left = self.deadline - time.monotonic()
        if left <= 0 or not select.select([self.fd], [], [], left)[0]:
            sys.exit("lsp_roundtrip: timed out waiting for the server")
        chunk = os.read(self.fd, 65536)
        if not chunk:
            sys.exit("lsp_roundtrip: the server closed its output")
        self.buf += chunk

    def message(self):
        while b"\r\n\r\n" not in self.buf:
            self._more()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        length = next(int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length"))
        while len(self.buf) < length:
            self._more()
        body, self.buf = self.buf[:length], self.buf[length:]
        return json.loads(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stoker")
    ap.add_argument("file")
    ap.add_argument("--expect", action="append", default=[], help="a code the diagnostics must include")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    path = pathlib.Path(args.file).resolve()
    uri = path.as_uri()
    lang = "python" if path.suffix == ".py" else ("cuda-cpp" if path.suffix in (".cu", ".cuh") else "cpp")
    proc = subprocess.Popen([args.stoker, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    reader = Reader(proc.stdout, time.monotonic() + args.timeout)

    def response(id_):
        while True:
            m = reader.message()
            if m.get("id") == id_ and "method" not in m:
                if "error" in m:
                    sys.exit(f"lsp_roundtrip: request {id_} failed: {m['error']}")
                return m

    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"processId": os.getpid(), "rootUri": path.parent.as_uri(), "capabilities": {}}})
    init = response(1)
    name = init["result"].get("serverInfo", {}).get("name", "?")
    send(proc, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": lang, "version": 1, "text": path.read_text()}}})
    while True:
        m = reader.message()
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
            diags = m["params"]["diagnostics"]
            break
    codes = sorted({str(d.get("code")) for d in diags})
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
    response(2)
    send(proc, {"jsonrpc": "2.0", "method": "exit", "params": None})
    proc.stdin.close()
    rc = proc.wait(timeout=30)
    print(f"{name}: {len(diags)} diagnostics on {path.name}: {' '.join(codes)}; exit {rc}")
    missing = [c for c in args.expect if c not in codes]
    if missing:
        sys.exit(f"lsp_roundtrip: expected {' '.join(missing)} among the diagnostics")
    if rc != 0:
        sys.exit(f"lsp_roundtrip: the server exited {rc} after shutdown/exit")


if __name__ == "__main__":
    main()
