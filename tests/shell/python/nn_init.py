# torch.nn.init's fills (under no_grad, from PyTorch's stream), Module.apply
# (children first, then the module), type(m) == nn.Linear, x.type(dtype).
import torch
from torch import nn
import torch.nn.init as init

torch.manual_seed(0)
net = nn.Sequential(nn.Flatten(), nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
seen = []

def init_weights(m):
    seen.append(type(m).__name__)
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)
        nn.init.zeros_(m.bias)

print(net.apply(init_weights) is net, seen)
print(net[1].weight, net[3].bias)
print(net[1].weight.requires_grad, net[1].weight.is_leaf)
print(nn.init.xavier_uniform_(torch.empty(3, 5)))
print(nn.init.xavier_normal_(torch.empty(2, 4), gain=2.0))
print(init.uniform_(torch.empty(3), -1, 1), init.normal_(torch.empty(2), mean=5.0))
print(init.constant_(torch.empty(2), 0.3), init.ones_(torch.zeros(2)))
print(net(torch.randn(2, 1, 2, 2)))
y_hat = torch.tensor([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
y = torch.tensor([1.0, 1.0, 1.0])
cmp = y_hat.argmax(axis=1).type(y.dtype) == y
print(cmp, cmp.type(y.dtype), float(cmp.type(y.dtype).sum()), y.type())
