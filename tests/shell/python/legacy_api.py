# PyTorch's older API in older tutorials: torch.autograd.Variable, the typed
# constructors (LongTensor, FloatTensor, ...; torch.Tensor of sizes), and
# torch.roll.
import torch
from torch.autograd import Variable
import torch.autograd as autograd
x = torch.ones(2)
v = Variable(x, requires_grad=True)
print(v is x, x.requires_grad, v.requires_grad, type(v).__name__, v)
w = autograd.Variable(x)
print(w is x, w)
y = torch.ones(2, requires_grad=True) * 2
z = Variable(y)
print(z is y, z.grad_fn, z.requires_grad, isinstance(x, Variable))
loss = (v * v).sum()
loss.backward()
print(v.grad, Variable(torch.tensor([1, 2])))
print(torch.LongTensor([1, 2]), torch.FloatTensor([1, 2]), torch.DoubleTensor([1]))
print(torch.IntTensor([3]), torch.BoolTensor([1, 0]), torch.LongTensor(2).shape)
print(torch.Tensor([1, 2]), torch.Tensor(2, 3).shape, torch.Tensor(torch.ones(2, 2).shape).shape)
print(torch.Tensor([[True, False]]), torch.Tensor().shape, torch.LongTensor(torch.tensor([1, 2])))
try:
    torch.LongTensor(torch.tensor([1.7, 2.2]))
except TypeError:
    print("TypeError")
x = torch.Tensor([1, 2])
print(isinstance(x, torch.Tensor), type(x).__name__, torch.FloatTensor([0.1]).dtype)
print(torch.roll(torch.arange(5), 2), torch.roll(torch.arange(6).view(2, 3), 1, 1))
print(torch.roll(torch.arange(6).view(2, 3), (1, 1), (0, 1)), torch.arange(6).view(2, 3).roll(-1))
x = torch.arange(6.).view(2, 3).requires_grad_()
y = x.roll(1, 1)
print(y, y.grad_fn.name())
(y * torch.arange(6.).view(2, 3)).sum().backward()
print(x.grad, torch.roll(torch.arange(4), 8), torch.roll(torch.arange(4), -5))
