# float32 math functions on tensors large enough that ag holds the results
# as floats (4096 elements or more): PyTorch's float kernels' bits (SLEEF's
# float functions; the last partial vector through the scalar ones).
import torch

n = 4099
x = torch.linspace(-6, 6, n, dtype=torch.float32)
fns = [torch.tanh, torch.exp, torch.sigmoid, torch.sin, torch.cos, torch.erf, torch.atan,
       torch.expm1]
for f in fns:
    r = f(x)
    print(r.dtype, r[7].item(), r[2049].item(), r[4098].item(), r[4097].item())
t = torch.tanh(x * 0.5) * x
print(t[1234].item(), t.sum().item())
s = torch.nn.functional.silu(x)
print(s[10].item(), s[4096].item())
