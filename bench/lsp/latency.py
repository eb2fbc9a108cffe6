#!/usr/bin/env python3
"""Time from textDocument/didChange to the matching textDocument/publishDiagnostics.

Generates a 2,000-line PyTorch training script (many model blocks and helpers, two loaders,
a training and an evaluation loop), opens it in `stoker server`, then sends N full-text changes
(one edited line each) one at a time and measures how long each takes to come back as
diagnostics for that version.

    python3 bench/lsp/latency.py build/stoker [--lines 2000] [--changes 200] [--dir DIR]
    python3 bench/lsp/latency.py build/stoker --compare OTHER_STOKER --dir DIR   # the ratio

--dir puts the document (also written to disk) in DIR, next to the modules there, so that
project mode reads them (bench/project: the issue-10 layout); --compare runs OTHER_STOKER the
same way, interleaved change by change, and prints the ratio of the median latencies.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def generate(lines: int) -> str:
    """A realistic large script: many model blocks and helpers, two loaders, train/eval loops."""
    head = [
        "import argparse",
        "import os",
        "import torch",
        "import torch.nn as nn",
        "import torch.nn.functional as F",
        "from torch.utils.data import DataLoader, TensorDataset",
        "",
        "parser = argparse.ArgumentParser()",
        "parser.add_argument('--batch-size', type=int, default=64)",
        "parser.add_argument('--epochs', type=int, default=10)",
        "args = parser.parse_args()",
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')",
        "",
    ]
    tail = [
        "",
        "def evaluate(model, loader):",
        "    model.eval()",
        "    total = 0.0",
        "    with torch.no_grad():",
        "        for x, y in loader:",
        "            x, y = x.to(device), y.to(device)",
        "            total += F.mse_loss(model(x), y).item()",
        "    return total",
        "",
        "",
        "def main():",
        "    train_ds = TensorDataset(torch.randn(4096, 64), torch.randn(4096, 64))",
        "    val_ds = TensorDataset(torch.randn(512, 64), torch.randn(512, 64))",
        "    train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True)",
        "    val_loader = DataLoader(val_ds, batch_size=args.batch_size)",
        "    model = Block0().to(device)",
        "    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)",
        "    for epoch in range(args.epochs):",
        "        model.train()",
        "        for step, (x, y) in enumerate(train_loader):",
        "            x, y = x.to(device), y.to(device)",
        "            loss = F.mse_loss(model(x), y)",
        "            opt.zero_grad()",
        "            loss.backward()",
        "            opt.step()",
        "            print(epoch, step, loss.item())",
        "        print('val', evaluate(model, val_loader))",
        "",
        "",
        "if __name__ == '__main__':",
        "    main()",
    ]
    body = []
    i = 0
    while len(head) + len(body) + len(tail) < lines:
        body += [
            "",
            f"class Block{i}(nn.Module):",
            f"    def __init__(self, width={64 + i % 7}):",
            "        super().__init__()",
            "        self.fc1 = nn.Linear(width, width)",
            "        self.fc2 = nn.Linear(width, width)",
            "        self.norm = nn.LayerNorm(width)",
            "",
            "    def forward(self, x):",
            "        h = F.relu(self.fc1(x))",
            "        return self.norm(x + self.fc2(h))",
            "",
            "",
            f"def schedule_{i}(step, warmup=100):",
            "    if step < warmup:",
            "        return step / warmup",
            f"    return 0.5 * (1 + torch.cos(torch.tensor(step / {1000 + i})).item())",
        ]
        i += 1
    out = head + body[: lines - len(head) - len(tail)] + tail
    return "\n".join(out) + "\n"


class Server:
    def __init__(self, binary):
        self.p = subprocess.Popen([binary, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.next_id = 1

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def read(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("server closed its output")
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        return json.loads(self.p.stdout.read(length))

    def request(self, method, params):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == rid and "method" not in m:
                return m

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics(self, uri, version):
        while True:
            m = self.read()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri \
                    and m["params"].get("version") == version:
                return m["params"]["diagnostics"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--changes", type=int, default=200)
    ap.add_argument("--dir")
    ap.add_argument("--compare")
    a = ap.parse_args()

    text = generate(a.lines)
    uri = "file:///tmp/stoker-bench/train_2000.py"
    if a.dir:
        doc = os.path.join(os.path.abspath(a.dir), "train_2000.py")
        with open(doc, "w") as f:
            f.write(text)
        uri = "file://" + doc
    if a.compare:
        return compare(a, text, uri)
    s = Server(a.binary)
    s.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {}})
    s.notify("initialized", {})
    t0 = time.perf_counter()
    s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
    diags = s.diagnostics(uri, 1)
    open_ms = (time.perf_counter() - t0) * 1000
    lines = text.split("\n")
    times = []
    for v in range(2, a.changes + 2):
        lines[-3] = f"# edit {v}"
        changed = "\n".join(lines)
        t0 = time.perf_counter()
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                            "contentChanges": [{"text": changed}]})
        s.diagnostics(uri, v)
        times.append((time.perf_counter() - t0) * 1000)
    s.request("shutdown", None)
    s.notify("exit", None)
    s.p.wait(timeout=10)
    times.sort()
    # The analyzer alone on the same text (the CLI, one process start included), to separate
    # the server's own overhead from the analysis.
    path = "/tmp/stoker-bench-%d.py" % os.getpid()
    with open(path, "w") as f:
        f.write(text)
    cli = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([a.binary, "check", "--exit-zero", "--output-format", "json", path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        cli.append((time.perf_counter() - t0) * 1000)
    os.unlink(path)
    print(f"document: {a.lines} lines, {len(text)} bytes, {len(diags)} diagnostics")
    print(f"didOpen -> publishDiagnostics: {open_ms:.1f} ms")
    print(f"didChange -> publishDiagnostics over {len(times)} changes: "
          f"median {statistics.median(times):.1f} ms, p90 {times[int(len(times) * 0.9) - 1]:.1f} ms, "
          f"max {times[-1]:.1f} ms")
    print(f"stoker check on the same text (process start included): median {statistics.median(cli):.1f} ms")


def compare(a, text, uri):
    servers = [Server(a.binary), Server(a.compare)]
    for s in servers:
        s.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {}})
        s.notify("initialized", {})
        s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                           "text": text}})
        s.diagnostics(uri, 1)
    lines = text.split("\n")
    times = [[], []]
    for v in range(2, a.changes + 2):
        lines[-3] = f"# edit {v}"
        changed = "\n".join(lines)
        for k, s in enumerate(servers):
            t0 = time.perf_counter()
            s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                                "contentChanges": [{"text": changed}]})
            s.diagnostics(uri, v)
            times[k].append((time.perf_counter() - t0) * 1000)
    for s in servers:
        s.request("shutdown", None)
        s.notify("exit", None)
        s.p.wait(timeout=10)
    m = [statistics.median(t) for t in times]
    print(f"document: {a.lines} lines in {os.path.dirname(uri[7:])}")
    print(f"{a.binary}: median {m[0]:.1f} ms; {a.compare}: median {m[1]:.1f} ms")
    print(f"ratio {a.binary} / {a.compare}: {m[0] / m[1]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
