"""MNIST-style training where DataLoader options travel through **kwargs dictionaries.

The CUDA options are added only when a GPU is present, as many tutorials do; stoker reads the
dictionaries, including `.update()` and item assignment, to know what the loader really gets.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data as tud


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(28 * 28, 256)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        return F.log_softmax(self.fc2(F.relu(self.fc1(x.flatten(1)))), dim=1)


def accuracy(output, target):
    pred = output.argmax(dim=1)
    return (pred == target).float().mean().item()


def train_epoch(args, model, device, loader, optimizer):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        acc = accuracy(output, target)
        if batch_idx % args.log_interval == 0:
            print(f"step {batch_idx}: loss {loss.item():.4f} acc {acc:.3f}")
        if args.smoke and batch_idx == 1:
            break


def evaluate(model, device, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            correct += (model(data).argmax(dim=1) == target).sum()
    print(f"accuracy {int(correct) / len(loader.dataset):.3f}")


def synthetic_mnist(n):
    images = torch.rand(n, 1, 28, 28)
    labels = torch.randint(0, 10, (n,))
    return tud.TensorDataset(images, labels)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--log-interval", type=int, default=10)
    parser.add_argument("--smoke", action="store_true", help="two steps on synthetic data")
    args = parser.parse_args()
    use_cuda = torch.cuda.is_available()
    device = torch.device("cuda" if use_cuda else "cpu")

    train_kwargs = {"batch_size": args.batch_size, "shuffle": True}
    if use_cuda:
        cuda_kwargs = {"num_workers": 0}
        train_kwargs.update(cuda_kwargs)
        train_kwargs["pin_memory"] = False

    eval_kwargs = {"batch_size": 256, "num_workers": 2, "pin_memory": True} if use_cuda else {}

    dataset = synthetic_mnist(256)
    loader = tud.DataLoader(dataset, **train_kwargs)
    eval_loader = tud.DataLoader(synthetic_mnist(64), **eval_kwargs)
    model = MLP().to(device)
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(1 if args.smoke else args.epochs):
        train_epoch(args, model, device, loader, optimizer)
        evaluate(model, device, eval_loader)


if __name__ == "__main__":
    main()
