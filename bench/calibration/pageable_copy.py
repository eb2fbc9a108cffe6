"""pageable-copy (DL002): batches copied from pageable memory, then from pinned memory with
the copy overlapped with compute. Needs CUDA."""
import time

import torch

import common


def main():
    p = common.parser(__doc__)
    p.add_argument("--batch-mb", type=float, default=64)
    p.add_argument("--step-ms", type=float, default=20)
    args = p.parse_args()
    dev = common.device(args)
    common.needs_cuda("pageable-copy", dev)
    gpu = args.gpu or common.guess_profile(dev)
    step = common.make_compute(dev, args.step_ms, size=2048)
    n = int(args.batch_mb * 2**20 / 4)
    pageable = [torch.randn(n) for _ in range(4)]
    pinned = [t.pin_memory() for t in pageable]
    batches_pg = [pageable[i % 4] for i in range(args.steps)]
    batches_pin = [pinned[i % 4] for i in range(args.steps)]

    def present():
        meter = common.BusyMeter(dev)
        t = time.perf_counter()
        for b in batches_pg:
            b.to(dev)
            meter.run(step)
        common.sync(dev)
        return meter.seconds() / (time.perf_counter() - t), meter.seconds() / args.steps * 1000

    def fixed():
        meter = common.BusyMeter(dev)
        t = time.perf_counter()
        common.prefetching_loop(batches_pin, dev, step, meter)
        common.sync(dev)
        return meter.seconds() / (time.perf_counter() - t)

    busy_now, t_gpu = present()
    busy_fixed = fixed()
    pred = common.predict("pageable-copy", gpu, {"step-time-ms": f"{t_gpu:.3f}", "batch-bytes": n * 4})
    common.row(f"pageable-copy ({args.batch_mb:.0f} MB/step, T_gpu {t_gpu:.0f} ms)", gpu, busy_now, busy_fixed, pred)


if __name__ == "__main__":
    main()
