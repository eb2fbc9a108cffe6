# A training script that starves its GPU: the loader has no workers.
import torch

ds = torch.utils.data.TensorDataset(torch.randn(256, 3), torch.randn(256, 1))
loader = torch.utils.data.DataLoader(ds, batch_size=64)
model = torch.nn.Linear(3, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
