# float32 arithmetic on tensors large enough that ag holds the results as
# floats (4096 elements or more): the same bits as PyTorch's float kernels,
# from operands made by a cast, by arithmetic, and read back as doubles.
import torch

n = 5003
x = torch.linspace(-3, 3, n).float()
y = torch.linspace(0.5, 2, n).to(torch.float32)
z = x * y + x
print(z.dtype, z.shape)
print(z[:3], z[-3:])
print(z[4100].item(), z[17].item(), z.sum().item())
w = (z - y) / y
print(w[1000].item(), w[4999].item())
v = w / 3 + 0.1
print(v[2].item(), v[4096].item(), v.dtype)
u = 2.5 - v * 7
print(u[3000:3003])
print(u.double()[5].item(), (u.double() * 0.1)[5].item())
print(torch.equal(z, x * y + x), (z == x * y + x).all().item())
a = torch.ones(n, dtype=torch.float32, requires_grad=True)
b = (a * x - y / a) / 4
b.sum().backward()
print(b[100].item(), a.grad[100].item(), a.grad.dtype)
with torch.no_grad():
    a -= 0.01 * a.grad
print(a[100].item(), a[4500].item())
print(torch.tensor([0.1] * 4097, dtype=torch.float32).sum().item())
# x[0] = v of a (1, n) v: v's elements, held as floats, read through a
# borrowed header, stay v's
m = torch.zeros(2, n, dtype=torch.float32)
r = torch.linspace(0, 1, n, dtype=torch.float32).reshape(1, n) * 3
m[0] = r
print(m[0, n - 1].item(), r[0, n - 1].item(), r.sum().item(), m.sum().item())
