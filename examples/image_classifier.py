"""Train a small convolutional classifier on images stored as .npy files.

A typical first training script: it works, and it keeps the GPU waiting most of the time.
Run `stoker check examples/image_classifier.py` to see where, and `--smoke` to run two steps
on synthetic data.
"""
import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class NpyImages(Dataset):
    def __init__(self, images, labels, augment=False):
        self.images = images
        self.labels = labels
        self.augment = augment

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        image = torch.from_numpy(self.images[i]).float() / 255.0
        if self.augment and np.random.rand() < 0.5:
            image = image.flip(-1)
        return image, int(self.labels[i])


class SmallCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.head = nn.Linear(64, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        return self.head(x.mean(dim=(2, 3)))


def load_data(smoke):
    if smoke:
        rng = np.random.default_rng(0)
        images = rng.integers(0, 255, size=(64, 3, 32, 32), dtype=np.uint8)
        labels = rng.integers(0, 10, size=64)
        return images, labels
    return np.load("images.npy"), np.load("labels.npy")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-b", "--batch-size", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--smoke", action="store_true", help="two steps on synthetic data")
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    images, labels = load_data(args.smoke)
    train_set = NpyImages(images, labels, augment=True)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True)

    model = SmallCNN().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    epochs = 1 if args.smoke else args.epochs
    for epoch in range(epochs):
        model.train()
        running_loss = 0.0
        start = time.time()
        for step, (x, y) in enumerate(train_loader):
            x = x.to(device)
            y = y.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            if args.smoke and step == 1:
                break
        print(f"epoch {epoch}: loss {running_loss / (step + 1):.4f} ({time.time() - start:.1f}s)")


if __name__ == "__main__":
    main()
