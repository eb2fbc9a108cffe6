"""small-batch (BS001): an MLP trained with batch 4, then with batch 64; GPU busy time is the
sum of kernel times from the PyTorch profiler over the wall time. Needs CUDA."""
import torch

import common


def main():
    p = common.parser(__doc__)
    p.add_argument("--small", type=int, default=4)
    p.add_argument("--large", type=int, default=64)
    args = p.parse_args()
    dev = common.device(args)
    common.needs_cuda("small-batch", dev)
    gpu = args.gpu or common.guess_profile(dev)
    model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU()) for _ in range(8)]).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)

    def run(batch):
        x = torch.randn(batch, 1024, device=dev)
        for _ in range(3):  # warm-up
            opt.zero_grad(); model(x).sum().backward(); opt.step()

        def loop():
            for _ in range(args.steps):
                opt.zero_grad(); model(x).sum().backward(); opt.step()
        kernel_s, elapsed = common.profiled_busy(dev, loop)
        return kernel_s / elapsed, kernel_s / args.steps * 1000

    busy_now, _ = run(args.small)
    busy_fixed, t_gpu_large = run(args.large)
    pred = common.predict("small-batch", gpu, {"step-time-ms": f"{t_gpu_large:.3f}"}, {"batch_size": args.small})
    common.row(f"small-batch ({args.small} -> {args.large})", gpu, busy_now, busy_fixed, pred)


if __name__ == "__main__":
    main()
