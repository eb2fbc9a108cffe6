"""No pattern: conv without bias before batch norm, a bias conv before an activation, foreach
Adam, zero_grad(set_to_none=True), a loader with workers."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(8)
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        x = F.relu(self.bn(self.conv(x)))
        x = self.bn2(F.relu(self.conv2(x)))
        return self.head(x.mean(dim=(2, 3)))


if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.randn(12, 3, 8, 8), torch.randint(0, 4, (12,))), batch_size=4,
                        num_workers=1, pin_memory=True)
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=True)
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
