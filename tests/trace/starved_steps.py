"""A starved training loop, profiled by tests/trace/record_cpu_trace.py (the --profile tests).

The loader decodes on the main process (no workers) and every step reads the loss back to the
host in `read_loss`. Runs on the CPU; the device line makes it a CUDA program for stoker.
"""
import time

import torch
from torch.utils.data import DataLoader, Dataset


class SlowImages(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        time.sleep(0.002)  # decoding on the main process
        return torch.randn(3, 16, 16), i % 10


def read_loss(loss):
    return loss.item()


def train(steps, profiler):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(768, 10)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(SlowImages(), batch_size=4)
    total = 0.0
    for step, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += read_loss(loss)
        profiler.step()
        if step + 1 == steps:
            break
    return total


def evaluate(model, loader, device):
    # Not run while profiling: its readback must not be joined to the training loop's.
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            pred = model(x.to(device)).argmax(1)
            correct += (pred == y.to(device)).sum().item()
    return correct
