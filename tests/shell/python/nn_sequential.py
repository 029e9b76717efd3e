# torch.nn's Sequential, Linear and MSELoss, initialised from PyTorch's
# random stream, trained with Adam.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
print(model)
print(model[0].weight)
print(model[2].bias)
print([name for name, p in model.named_parameters()])
print(list(model.state_dict().keys()))
print(len(model), len(list(model.parameters())), type(model[1]).__name__)
for layer in model:
    print(type(layer).__name__, layer.training)
x = torch.randn(6, 2)
y = torch.randn(6, 1)
loss_fn = nn.MSELoss()
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(8):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 12))
print(model.eval().training, model[0].training, model.train().training)
model.zero_grad(set_to_none=True)  # PyTorch 2's default; 1.13's was False
print(model[0].weight.grad)
model.requires_grad_(False)
print(model[0].weight.requires_grad, model(x).requires_grad)
print(isinstance(model[0].weight, nn.Parameter), isinstance(x, nn.Parameter))
print(nn.Linear(3, 2, bias=False))
