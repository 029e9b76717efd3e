# nn.LayerNorm and F.layer_norm: values, gradients, the module's text, its
# parameters, over one and two dims, without the affine pair. Expected:
# PyTorch's (ag's composition of ops is an ulp or two from PyTorch's kernel
# in places: nothing printed here shows it).
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
ln = nn.LayerNorm(3)
x = torch.tensor([[1., 2., 4.], [0.5, -1.0, 3.0]], requires_grad=True)
y = ln(x)
print(ln, y)
(y * torch.tensor([1.0, -2.0, 0.5])).sum().backward()
print(x.grad, ln.weight.grad, ln.bias.grad)
z = torch.randn(2, 4, 6)
m = nn.LayerNorm([4, 6], eps=1e-3, elementwise_affine=False)
print(m, m(z)[0, 0, :3], list(m.parameters()))
print(F.layer_norm(z, (6,)).std(-1, unbiased=False)[0])
print(torch.nn.LayerNorm(16).weight.shape, sum(p.numel() for p in nn.LayerNorm((2, 8)).parameters()))
