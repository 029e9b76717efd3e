# Idioms of real PyTorch tutorials (the survey): a custom Function whose
# backward returns a None for each argument forward took beyond its
# inputs, {**d} in a dict display, x.ndimension(), x.expand_as(y),
# x.is_contiguous() of a tensor made so.
import torch
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale=None):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2, None
x = torch.ones(2, requires_grad=True)
Scale.apply(x).sum().backward()
print(x.grad)
class TooMany(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3
    @staticmethod
    def backward(ctx, g):
        return g * 3, None, None
y = torch.ones(3, requires_grad=True)
TooMany.apply(y).sum().backward()
print(y.grad)
m = torch.ones(2, 3)
print(m.is_contiguous(), m.ndimension(), torch.zeros(3).expand_as(m).shape)
defaults = {"lr": 0.1, "momentum": 0.9}
config = {**defaults, "lr": 0.01, **{"nesterov": True}}
print(config, {**{}}, {"a": 1, **defaults})
try:
    {**[1, 2]}
except TypeError as e:
    print("TypeError:", e)
class Wrong(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3
    @staticmethod
    def backward(ctx, g):
        return g * 3, g
z = torch.ones(3, requires_grad=True)
Wrong.apply(z).sum().backward()
