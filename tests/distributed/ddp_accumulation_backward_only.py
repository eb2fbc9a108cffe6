"""The look-alike: `no_sync()` around the backward only. DDP prepares the all-reduce in its
forward, which runs outside no_sync, so every micro-step still all-reduces (DD001 reports the
forward). Run by ddp_no_sync_check.py as ddp_accumulation.py is."""
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

ACCUM = 4  # micro-steps per optimizer step
STEPS = 3  # optimizer steps per rank
BATCH = 4


def main():
    use_cuda = torch.cuda.is_available()
    device = torch.device("cuda" if use_cuda else "cpu")
    dist.init_process_group("nccl" if use_cuda else "gloo")
    world = dist.get_world_size()
    torch.manual_seed(0)
    model = DDP(nn.Linear(8, 4).to(device))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(1)
    n = ACCUM * STEPS * BATCH * world
    dataset = TensorDataset(torch.randn(n, 8, generator=g), torch.randint(0, 4, (n,), generator=g))
    loader = DataLoader(dataset, batch_size=BATCH, sampler=DistributedSampler(dataset, shuffle=False))
    for i, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y) / ACCUM
        if (i + 1) % ACCUM != 0:
            with model.no_sync():
                loss.backward()
        else:
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
    weights = torch.cat([p.detach().flatten() for p in model.parameters()]).cpu()
    print("weights " + " ".join(f"{w:.8f}" for w in weights.tolist()))


if __name__ == "__main__":
    main()
