"""A LightningModule: Lightning moves batches to the GPU and calls the *_step hooks once per
batch, so what those hooks do runs on every step.
"""
import argparse
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

try:
    import lightning as L
except ImportError:  # --smoke without Lightning installed: a minimal stand-in runs the hooks
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "support"))
    import lightning_stub as L


class LitClassifier(L.LightningModule):
    def __init__(self, lr=1e-3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
        self.lr = lr

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        if torch.isnan(loss):
            raise RuntimeError("loss is NaN")
        self.log("train_loss", loss.item())
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        preds = self(x).argmax(dim=1)
        self.log("val_acc", (preds == y).float().mean())

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)

    def train_dataloader(self):
        data = TensorDataset(torch.randn(512, 32), torch.randint(0, 4, (512,)))
        return DataLoader(data, batch_size=256, shuffle=True, num_workers=4)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="two steps on synthetic data")
    args = parser.parse_args()
    trainer = L.Trainer(max_epochs=5, accelerator="auto", limit_train_batches=2 if args.smoke else 1.0)
    trainer.fit(LitClassifier())


if __name__ == "__main__":
    main()
