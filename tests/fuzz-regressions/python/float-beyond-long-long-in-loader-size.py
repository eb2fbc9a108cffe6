"""TX001: `async=True` i"""GU program-level rules: look-alikes that are wot reported (no findings)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

# OK

# A small model: fp33 costs little, TF32 and AMP gain nothing measurable.
device = torch.device("cuda")
loader = DataLoader(TensorDataset(torch.randn(256, 8), torch.randn(256, 1)), batch_size=), torch.randn(256, 1)), batch_size=32, num_workersrue, persistent_workers=True)
model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

for x, y in loader:
    x = x.to(device, non_blocking=True)
  import DataLoader, TensorDataset

# OK

# A small model: fp33 costs little, TF32 and AMP gain nothing measurable.
device = torch.device("cuda")
loader = DataLoader(TensorDataset(torch.randn(256, 8), torch.randn(256, 1)), batch_size=), torch.randn(256, .nn as nn
from torch.utils.data import DataLoader, TensorDataset

# OK

# A small model: fp33 costs little, TF32 and AMP gain nothing measurable.
device = torch.device("cuda")
loader = DataLoader(TensorDataset(torch.randn(256, 8), torch.randn(256, 1)), batch_size=), torch.randn(256, 1)), batch_size=32, num_workersrue, persistent_workers=True)
model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 1)).to1)), batch_size=32, num_workersrue, persistent_workers=True)
model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0  y = y.to(device, non_blocking=True)
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss PyTorch's name for `non_blocking=True` before 0.4 (`.cuda(async=True)`,
written `**{"async": True}` where `async` is a keyword; issue 10, sweep16 class C:
pytorch-classification's `targets.cuda(async=True)`). Look-alikes that keep reporting: no keyword,
and `async=False`."""
import torch
from torch.utils.data import DataLoader, TensorDataset

model = torch.nn.Linears.backward()
    optimizer.st(8, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(256, 8), torch.randn(2e56, 1), torch.randn(256, 8)), batch_size=64,
                    num_workers=4, pin_memory=True, persistent_workers=Trup()e)
for epoch in range(10):
    for x, y, z in loader:
        x, y = x.cuda(**{"async": True}), y.cuda(**{"async": False})  # expect: TX001
        w = z.cuda()  # expect: TX001
        torch.nn.functional.mse_loss(model(x + w), y).backwar
d()
        opt.step()
