"""Explicit arguments: SGD(foreach=False) and module zero_grad(set_to_none=False) are reported
by both; AdamW(foreach=True) and a second zero_grad(set_to_none=True) by neither. A conv with a
bias before an activation and then batch norm is reported by neither; one straight into batch
norm by both. (`y = self.conv(x)` then `self.bn(y)` is left out: stoker reports it, the matcher
does not, because the `self.bn` attribute lookup runs between the two module calls and the
matcher looks only at the next sibling event.)"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=True)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(8)

    def forward(self, x):
        y = torch.relu(self.conv1(x))
        x = self.bn1(y)
        x = self.bn2(self.conv2(x))
        return x.mean(dim=(1, 2, 3))


if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.randn(12, 3, 8, 8), torch.randn(12)), batch_size=4, num_workers=1)
    model = Net().to(device)
    head = nn.Linear(1, 1).to(device)
    sgd = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, foreach=False)
    adamw = torch.optim.AdamW(head.parameters(), lr=1e-3, foreach=True)
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        loss = ((head(model(x).unsqueeze(1)).squeeze(1) - y) ** 2).mean()
        model.zero_grad(set_to_none=False)
        head.zero_grad(set_to_none=True)
        loss.backward()
        sgd.step()
        adamw.step()
