"""A DDP training loop with gradient accumulation, as commonly written: every micro-step's
backward all-reduces (DD001). Run by ddp_no_sync_check.py as two gloo processes on the CPU
(RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT in the environment, as torchrun sets them)."""
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
        loss.backward()
        if (i + 1) % ACCUM == 0:
            optimizer.step()
            optimizer.zero_grad()
    weights = torch.cat([p.detach().flatten() for p in model.parameters()]).cpu()
    print("weights " + " ".join(f"{w:.8f}" for w in weights.tolist()))


if __name__ == "__main__":
    main()
