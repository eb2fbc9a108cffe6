"""alloc-in-loop (CU004): a device buffer freed back to the driver and allocated again every
step (`empty_cache()` defeats PyTorch's caching allocator, so each step pays cudaFree and
cudaMalloc, as raw CUDA code does), then one buffer allocated before the loop. Needs CUDA."""
import time

import torch

import common


def main():
    p = common.parser(__doc__)
    p.add_argument("--buffer-mb", type=float, default=256)
    p.add_argument("--step-ms", type=float, default=10)
    args = p.parse_args()
    dev = common.device(args)
    common.needs_cuda("alloc-in-loop", dev)
    gpu = args.gpu or common.guess_profile(dev)
    step = common.make_compute(dev, args.step_ms, size=1024)
    n = int(args.buffer_mb * 2**20 / 4)

    def run(per_step):
        meter = common.BusyMeter(dev)
        buf = torch.empty(n, device=dev)
        t = time.perf_counter()
        for _ in range(args.steps):
            if per_step:
                del buf
                torch.cuda.empty_cache()
                buf = torch.empty(n, device=dev)
            buf.zero_()
            meter.run(step)
        common.sync(dev)
        return meter.seconds() / (time.perf_counter() - t), meter.seconds() / args.steps * 1000

    busy_fixed, t_gpu = run(False)
    busy_now, _ = run(True)
    pred = common.predict("alloc-in-loop", gpu, {"step-time-ms": f"{t_gpu:.3f}"}, {"allocs_per_step": 2})
    common.row(f"alloc-in-loop ({args.buffer_mb:.0f} MB, T_gpu {t_gpu:.0f} ms)", gpu, busy_now, busy_fixed, pred)


if __name__ == "__main__":
    main()
