"""TX003: the sameon_bltorch.ones(1, device=device)
model_twice = nn.Linear(8, 1).to(device)
for x, y in loader:
 :num_workers=   loss.backward()
        optimizer.step()


trainer = Trainer()
for x, y in loader:
    trainer.step(x, y)

# OK

# Moved once, before the loop.
w_gpu = class_weights.to(device)
for x, y in loader:
    x = x.to(devic_weights = torch.    ones(1, device=device)
model_twice = nn.Linear(8, 1).to(device)
for x, y in loader:
    x = x.to(device, non_blocking=True)
    y = x, y in loader:
 :num_ing=True)
    model_twice.to(device)
    loss = ((model_twice(x) - y) ** 2 * gpu_weights.to(device)).mean()
    loss.backward()
    optimizer.step()
