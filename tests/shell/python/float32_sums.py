# float32 sums add in float, in PyTorch's order (vectors of 8 floats,
# cascaded): every bit of the result printed, over all elements, along a
# dim (inner and outer), over two dims, as a mean, and as the gradient of a
# broadcast parameter (sum_to).
import torch

for n in [1, 5, 8, 9, 16, 17, 33, 100, 257, 1000, 2000, 4099]:
    x = torch.linspace(-3.0, 3.7, n, dtype=torch.float32) ** 2 * 1.37 + 0.1
    print(n, float(x.sum()), float(x.mean()))

m = torch.linspace(-2.0, 5.0, 24 * 35, dtype=torch.float32).reshape(24, 35) * 0.731
print([float(v) for v in m.sum(0)[:6]], [float(v) for v in m.sum(1)[:6]])
c = m.reshape(4, 6, 35)
print([float(v) for v in c.sum((0, 2))], float(c.sum((1, 2))[3]))

w = torch.tensor(0.25, dtype=torch.float32, requires_grad=True)
b = torch.zeros(35, dtype=torch.float32, requires_grad=True)
((m * w + b) ** 2).sum().backward()
print(float(w.grad), [float(v) for v in b.grad[:5]])
