# F.dropout(..., inplace=True) and nn.Dropout(p, inplace=True): PyTorch's
# mask from its stream, written into the input (input.mul_(noise)),
# recorded onto its history; in eval, or at p = 0, the input as it is
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.ones(2, 5)
y = F.dropout(x, 0.4, True, True)
print(x, y is x, x._version)
w = torch.ones(6, requires_grad=True)
h = w * 2
d = F.dropout(h, 0.5, inplace=True)
print(d is h, h.grad_fn.name(), h._version)
h.sum().backward()
print(w.grad)
m = nn.Sequential(nn.Linear(4, 3), nn.Dropout(0.3, inplace=True))
z = m(torch.ones(2, 4))
z.sum().backward()
print(z, m[0].bias.grad, m)
m.eval()
print(m(torch.ones(1, 4)))
e = torch.ones(3)
print(F.dropout(e, 0.5, False, True) is e)
print(F.dropout(torch.ones(3), 1.0, True, True))
