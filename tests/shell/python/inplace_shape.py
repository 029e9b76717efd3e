# squeeze_, unsqueeze_, t_ and transpose_ change the tensor's shape in place,
# as PyTorch's (squeeze_ did nothing, unsqueeze_ failed).
import torch
t = torch.tensor([3, 1, 4])
s = torch.zeros(1, 3)
print(s.squeeze_().shape, s.shape)
t.unsqueeze_(-1)
print(t.shape, t)
m = torch.arange(6.).view(2, 3)
alias = m
m.t_()
print(m, alias.shape, m._version)
m.transpose_(0, 1)
print(m)
u = torch.ones(2, 1, 3)
u.squeeze_(1)
print(u.shape)
w = torch.ones(3, requires_grad=True)
try:
    w.unsqueeze_(0)
except RuntimeError as e:
    print(e)
with torch.no_grad():
    w2 = torch.ones(3, requires_grad=True)
