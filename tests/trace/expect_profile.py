"""Expected measurement of a PyTorch profiler trace, computed without stoker.

Reads the trace with Python's gzip and json modules (a whole DOM: fine for a test), and
computes, from the rules in docs/cli.md ("Measured costs"):
  - the steps (ProfilerStep#N windows on the host, once each),
  - GPU busy time per step (union of kernel, memcpy and memset intervals over every stream),
  - per host kind, the GPU idle time attributed to it and its host time (kinds in priority
    order; an event that starts inside an event already counted on its thread, of the same or
    an earlier kind, is part of that one).
Prints JSON: {"steps": [{"name", "duration_ms", "busy_ms"}], "kinds": {kind: {"idle_ms", "host_ms"}}}
with times summed over all steps, plus "names" (kind -> event name -> idle ms), "gpu_union_ms" (all GPU activity merged) and "events".
"""
import gzip
import json
import sys

GPU = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"}
SKIP = {"gpu_user_annotation", "cuda_sync", "trace", "ac2g", "fwdbwd", "python_function"}
ORDER = ["readback", "sync", "blocking-copy", "pageable-copy", "alloc", "loader", "optimizer"]


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    doc = json.loads(data)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def kind_of(e, pageable):
    name, cat = e.get("name", ""), (e.get("cat") or "").lower()
    if name in ("aten::item", "aten::_local_scalar_dense", "aten::is_nonzero"):
        return "readback"
    if name in ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize"):
        return "sync"
    if name.startswith("cudaMemcpy"):
        if "Async" not in name:
            return "blocking-copy"
        corr = (e.get("args") or {}).get("correlation")
        return "pageable-copy" if corr in pageable else None
    if name in ("cudaMalloc", "cudaFree", "cudaMallocHost", "cudaFreeHost", "cudaHostAlloc",
                "cudaMallocAsync", "cudaFreeAsync"):
        return "alloc"
    if "DataLoader" in name and "__next__" in name:
        return "loader"
    if name.startswith("Optimizer.step#") or name.startswith("Optimizer.zero_grad#"):
        return "optimizer"
    return None


def subtract(segments, a, b):
    """Removes [a, b] from the list of disjoint segments; returns (rest, removed length)."""
    rest, removed = [], 0.0
    for s, e in segments:
        if e <= a or s >= b:
            rest.append((s, e))
            continue
        x, y = max(s, a), min(e, b)
        removed += y - x
        if s < x:
            rest.append((s, x))
        if y < e:
            rest.append((y, e))
    return rest, removed


def inside(x, y, a, b):
    """Is [a, b] a call made from [x, y] on the same thread? The autograd profiler floors ends to
    whole microseconds ([5, 5] in [3, 5]); torch 1.13 without Kineto floors the start and the
    duration apart, so a call in the caller's last microsecond can be written just after its
    end ([5, 5] after [3, 4]; [4, 5] after [3, 4])."""
    if x > a:
        return False
    if a < y or a == b == y:
        return True
    return all(v == int(v) for v in (y, a, b)) and b <= y + 1


def main(path):
    load_count = load(path)
    events = [e for e in load_count if e.get("ph") == "X" and "ts" in e and e.get("dur", -1) >= 0]
    pageable = {(e.get("args") or {}).get("correlation") for e in events
                if (e.get("cat") or "").lower() == "gpu_memcpy" and "Pageable -> Device" in e.get("name", "")}
    gpu = sorted((e["ts"], e["ts"] + e["dur"]) for e in events
                 if (e.get("cat") or "").lower() in GPU and e["dur"] > 0)
    steps = sorted({(e["ts"], e["ts"] + e["dur"], e["name"]) for e in events
                    if e.get("name", "").startswith(("ProfilerStep#", "ProfilerStep*"))
                    and (e.get("cat") or "").lower() not in GPU | SKIP})
    host = []
    for e in events:
        cat = (e.get("cat") or "").lower()
        if cat in GPU or cat in SKIP or e.get("name", "").startswith(("ProfilerStep#", "ProfilerStep*")):
            continue
        k = kind_of(e, pageable)
        if k:
            host.append((e["ts"], e["ts"] + e["dur"], k, (e.get("pid"), e.get("tid")), e["name"]))
    host.sort(key=lambda h: (h[0], -h[1]))
    out = {"steps": [], "kinds": {k: {"idle_ms": 0.0, "host_ms": 0.0} for k in ORDER}, "names": {}}
    union = []  # GPU activity merged across streams and devices
    for a, b in gpu:
        if union and a <= union[-1][1]:
            union[-1][1] = max(union[-1][1], b)
        else:
            union.append([a, b])
    out["gpu_union_ms"] = sum(b - a for a, b in union) / 1000
    out["events"] = len(load_count)
    for s, t, name in steps:
        # Idle: the parts of [s, t] no GPU interval covers.
        idle, busy, cursor = [], 0.0, s
        for a, b in union:
            if b <= s or a >= t:
                continue
            a, b = max(a, s), min(b, t)
            busy += b - a
            if a > cursor:
                idle.append((cursor, a))
            cursor = max(cursor, b)
        if cursor < t:
            idle.append((cursor, t))
        out["steps"].append({"name": name, "duration_ms": (t - s) / 1000, "busy_ms": busy / 1000})
        kept = {}
        for k in ORDER:
            for a, b, kind, thread, name_of in host:
                if kind != k or a >= t or b <= s:
                    continue
                if any(inside(x, y, a, b) for x, y in kept.get(thread, [])):
                    continue
                kept.setdefault(thread, []).append((a, b))
                out["kinds"][k]["host_ms"] += (min(b, t) - max(a, s)) / 1000
                idle, removed = subtract(idle, max(a, s), min(b, t))
                out["kinds"][k]["idle_ms"] += removed / 1000
                names = out["names"].setdefault(k, {})
                names[name_of] = names.get(name_of, 0.0) + removed / 1000
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
