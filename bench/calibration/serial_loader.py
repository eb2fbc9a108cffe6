"""serial-loader (DL001): a DataLoader without workers, then with W workers.

The dataset spends `--load-ms` per sample waiting (like reading and decoding from storage),
so loading parallelizes across workers as it does for I/O-bound input pipelines; the step is a
fixed amount of matmul work. Runs on the CPU too: the effect is the host's, not the GPU's.
"""
import time
import warnings

import torch
from torch.utils.data import DataLoader, Dataset

import common


class SlowDataset(Dataset):
    def __init__(self, n, load_ms):
        self.n, self.load_s = n, load_ms / 1000

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.load_s)
        return torch.full((16,), float(i))


def main():
    warnings.filterwarnings("ignore", message=".*worker processes in total.*")
    p = common.parser(__doc__)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--load-ms", type=float, default=4.0, help="load time per sample")
    p.add_argument("--step-ms", type=float, default=40.0, help="compute per step")
    p.add_argument("--workers", type=int, default=4)
    args = p.parse_args()
    torch.set_num_threads(1)
    dev = common.device(args)
    gpu = args.gpu or common.guess_profile(dev)
    step = common.make_compute(dev, args.step_ms)
    n = args.steps * args.batch_size
    ds = SlowDataset(n, args.load_ms)

    def train(workers):
        extra = {"persistent_workers": True, "prefetch_factor": 4} if workers else {}
        loader = DataLoader(ds, batch_size=args.batch_size, num_workers=workers, **extra)
        it = iter(loader)
        next(it)  # start-up (worker spawn) is the respawn model's cost, not this one's
        meter = common.BusyMeter(dev)
        t = time.perf_counter()
        for batch in it:
            batch.to(dev)
            meter.run(step)
        common.sync(dev)
        elapsed = time.perf_counter() - t
        return meter.seconds() / elapsed, meter.seconds() / (args.steps - 1) * 1000

    t_load = common.wall(lambda: [b for b in DataLoader(ds, batch_size=args.batch_size)], dev) / args.steps * 1000
    busy_now, t_gpu = train(0)
    busy_fixed, _ = train(args.workers)
    pred = common.predict("serial-loader", gpu,
                          {"step-time-ms": f"{t_gpu:.3f}", "load-time-ms": f"{t_load:.3f}", "workers": args.workers},
                          {"batch_size": args.batch_size, "num_workers": 0})
    common.row(f"serial-loader (T_gpu {t_gpu:.0f} ms, T_load {t_load:.0f} ms, W={args.workers})", gpu,
               busy_now, busy_fixed, pred)


if __name__ == "__main__":
    main()
