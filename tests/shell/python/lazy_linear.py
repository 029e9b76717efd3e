# nn.LazyLinear: parameters made and initialised at the first call (from the
# stream then, as PyTorch's), after which it is a Linear; obj.__class__ = Cls;
# type(param) is nn.Parameter.
import torch
import torch.nn as nn
torch.manual_seed(0)
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
print(net)
print(net[0].weight)
X = torch.rand(2, 4)
print(net(X))
print(net)
print(type(net[0]).__name__, net[2].weight.shape, [n for n, p in net.named_parameters()])
print(net[2].state_dict())
lin = nn.LazyLinear(3, bias=False)
print(lin(torch.ones(1, 2)), lin)
w = nn.Linear(2, 1).weight
print(type(w), type(w) is nn.Parameter, type(torch.ones(1)), type(w).__name__)


class A:
    def f(self):
        return 1


class B:
    def f(self):
        return 2


a = A()
a.__class__ = B
print(type(a).__name__, a.f(), isinstance(a, B))
try:
    a.__class__ = 3
except TypeError as e:
    print("TypeError", e)
