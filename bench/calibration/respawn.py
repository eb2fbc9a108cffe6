"""respawn (DL003): workers started every epoch, then persistent workers.

Measures the epoch time of a short epoch with and without `persistent_workers=True`; the
worker start-up cost is what the respawn model charges once per epoch. Runs on the CPU too.
"""
import time
import warnings

import torch
from torch.utils.data import DataLoader, TensorDataset

import common


def main():
    warnings.filterwarnings("ignore", message=".*worker processes in total.*")
    p = common.parser(__doc__)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--step-ms", type=float, default=20.0)
    args = p.parse_args()
    torch.set_num_threads(1)
    dev = common.device(args)
    gpu = args.gpu or common.guess_profile(dev)
    step = common.make_compute(dev, args.step_ms)
    ds = TensorDataset(torch.randn(args.steps * 8, 16))

    def train(persistent):
        loader = DataLoader(ds, batch_size=8, num_workers=args.workers, persistent_workers=persistent)
        for batch, in loader:  # warm-up epoch: both variants pay the first start-up
            pass
        meter = common.BusyMeter(dev)
        t = time.perf_counter()
        for _ in range(args.epochs):
            for batch, in loader:
                batch.to(dev)
                meter.run(step)
        common.sync(dev)
        elapsed = time.perf_counter() - t
        return meter.seconds() / elapsed, meter.seconds() / (args.steps * args.epochs) * 1000

    busy_now, t_gpu = train(False)
    busy_fixed, _ = train(True)
    pred = common.predict("respawn", gpu, {"step-time-ms": f"{t_gpu:.3f}"},
                          {"num_workers": args.workers, "steps_per_epoch": args.steps})
    common.row(f"respawn (W={args.workers}, {args.steps} steps/epoch, T_gpu {t_gpu:.0f} ms)", gpu,
               busy_now, busy_fixed, pred)


if __name__ == "__main__":
    main()
