"""sync-bubble (SY001): `loss.item()` every N steps inside the loop, then accumulation on the
device with one read at the end. Needs CUDA."""
import torch

import common


def main():
    p = common.parser(__doc__)
    p.add_argument("--every", type=int, default=1, help="read the loss every N steps (amortization)")
    p.add_argument("--step-ms", type=float, default=5)
    args = p.parse_args()
    dev = common.device(args)
    common.needs_cuda("sync-bubble", dev)
    gpu = args.gpu or common.guess_profile(dev)
    # Many small kernels: the host needs time to queue them again after each sync.
    step = common.make_compute(dev, args.step_ms, size=256)

    def run(read):
        def loop():
            total = torch.zeros((), device=dev)
            for i in range(args.steps):
                loss = step().mean()
                if read and i % args.every == 0:
                    loss.item()
                else:
                    total += loss.detach()
            total.item()
        kernel_s, wall_s = common.profiled_busy(dev, loop)
        return kernel_s / wall_s, kernel_s / args.steps * 1000

    busy_fixed, t_gpu = run(False)
    busy_now, _ = run(True)
    pred = common.predict("sync-bubble", gpu, {"step-time-ms": f"{t_gpu:.3f}"}, {"amortize_every": args.every})
    common.row(f"sync-bubble (every {args.every} steps, T_gpu {t_gpu:.1f} ms)", gpu, busy_now, busy_fixed, pred)


if __name__ == "__main__":
    main()
