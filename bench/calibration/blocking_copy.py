"""blocking-copy (TX001): pinned batches moved with a blocking `.to(device)`, then with
`non_blocking=True` prefetched on a side stream. Needs CUDA."""
import time

import torch

import common


def main():
    p = common.parser(__doc__)
    p.add_argument("--batch-mb", type=float, default=64)
    p.add_argument("--step-ms", type=float, default=20)
    args = p.parse_args()
    dev = common.device(args)
    common.needs_cuda("blocking-copy", dev)
    gpu = args.gpu or common.guess_profile(dev)
    step = common.make_compute(dev, args.step_ms, size=2048)
    n = int(args.batch_mb * 2**20 / 4)
    pinned = [torch.randn(n).pin_memory() for _ in range(4)]
    batches = [pinned[i % 4] for i in range(args.steps)]

    def present():
        meter = common.BusyMeter(dev)
        t = time.perf_counter()
        for b in batches:
            b.to(dev)  # non_blocking=False: the host waits for the copy
            meter.run(step)
        common.sync(dev)
        return meter.seconds() / (time.perf_counter() - t), meter.seconds() / args.steps * 1000

    def fixed():
        meter = common.BusyMeter(dev)
        t = time.perf_counter()
        common.prefetching_loop(batches, dev, step, meter)
        common.sync(dev)
        return meter.seconds() / (time.perf_counter() - t)

    busy_now, t_gpu = present()
    busy_fixed = fixed()
    pred = common.predict("blocking-copy", gpu, {"step-time-ms": f"{t_gpu:.3f}", "batch-bytes": n * 4})
    common.row(f"blocking-copy ({args.batch_mb:.0f} MB/step, T_gpu {t_gpu:.0f} ms)", gpu, busy_now, busy_fixed, pred)


if __name__ == "__main__":
    main()
