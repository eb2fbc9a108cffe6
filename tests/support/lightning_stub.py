"""A minimal stand-in for Lightning, used only to run examples/lightning_classifier.py with
--smoke where Lightning is not installed (Debian does not package it). It drives the hooks the
way Lightning's fit loop does: configure_optimizers, train_dataloader, training_step per batch.
"""
import torch.nn as nn


class LightningModule(nn.Module):
    def log(self, name, value, **kwargs):
        self.logged = getattr(self, "logged", {})
        self.logged[name] = value


class Trainer:
    def __init__(self, max_epochs=1, accelerator="auto", limit_train_batches=1.0):
        self.max_epochs = max_epochs
        self.limit_train_batches = limit_train_batches

    def fit(self, module):
        optimizer = module.configure_optimizers()
        batches = module.train_dataloader()
        limit = self.limit_train_batches if isinstance(self.limit_train_batches, int) else None
        epochs = 1 if limit else self.max_epochs
        for epoch in range(epochs):
            for index, batch in enumerate(batches):
                if limit is not None and index >= limit:
                    break
                loss = module.training_step(batch, index)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
