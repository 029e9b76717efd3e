# What each op's backward reads, as PyTorch saves it: changing in place a
# tensor the backward does not read is harmless (the loss of a loss
# function, a linear layer's output, softmax's input, maximum's result)
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
model = nn.Linear(3, 1)
x = torch.randn(4, 3)
y = torch.randn(4, 1)
loss = nn.MSELoss()(model(x), y)
loss /= 2  # gradient accumulation's habit
loss.backward()
print(loss, model.weight.grad)
out = model(x)
out += 1
out.sum().backward()
print(model.bias.grad)
w = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
t = torch.tensor([2, 0])
for f in [lambda v: F.cross_entropy(v, t), lambda v: F.nll_loss(F.log_softmax(v, 1), t),
          lambda v: F.l1_loss(v, torch.ones(2, 3)), lambda v: F.smooth_l1_loss(v, torch.ones(2, 3)),
          lambda v: F.binary_cross_entropy_with_logits(v, torch.ones(2, 3)),
          lambda v: F.binary_cross_entropy(torch.sigmoid(v), torch.ones(2, 3)),
          lambda v: F.huber_loss(v, torch.zeros(2, 3)), lambda v: F.kl_div(v, torch.ones(2, 3) / 3)]:
    w.grad = None
    l = f(w)
    l *= 3
    l.backward()
    print(l, w.grad)
for g in [lambda v: F.leaky_relu(v, 0.1), F.elu, F.gelu, F.softplus,
          lambda v: torch.maximum(v, v * 0.5), lambda v: torch.minimum(v, -v), lambda v: v.var(1)]:
    w.grad = None
    h = g(w)
    h += 1
    h.sum().backward()
    print(w.grad)
a = w.detach().clone().requires_grad_()
s = torch.softmax(a * 1, 1)
b = a * 1
p = torch.log_softmax(b, 1)
b += 5
(s * torch.tensor([1., 2., 3.])).sum().backward()
print(a.grad)
