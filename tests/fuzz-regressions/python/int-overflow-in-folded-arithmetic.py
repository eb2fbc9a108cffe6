import torch
from torch.utils.data import DataLoader, TensorDataset

# Constant folding past long long: Python's ints are unbounded, the analysis's are not.
big = 9223372036854775807
n = big * big + big
m = -(-big - 1)
k = (-big - 1) // -1
size = int(1e300)
size += big
size *= big
loader = DataLoader(TensorDataset(torch.randn(n, 8), torch.randn(2e56, 1)), batch_size=int(2e56) + big)
for epoch in range(big * 4):
    for x, in loader:
        x = x.cuda()
        if epoch % (big * 3) == 0:
            print(x.sum().item())
