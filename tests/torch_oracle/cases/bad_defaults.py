"""Every pattern present: a conv with bias before batch norm, Adam and zero_grad with the 1.13
defaults, a loader without workers. Statically a CUDA program; on the test machine it runs on
the CPU."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        x = F.relu(self.bn(self.conv(x)))
        return self.head(x.mean(dim=(2, 3)))


loader = DataLoader(TensorDataset(torch.randn(12, 3, 8, 8), torch.randint(0, 4, (12,))), batch_size=4)
model = Net().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for x, y in loader:
    x = x.to(device, non_blocking=True)
    y = y.to(device, non_blocking=True)
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
