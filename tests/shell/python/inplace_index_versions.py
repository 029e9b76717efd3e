# x[...] op= v counts two changes of x's version when the index is basic
# (PyTorch's op= on the view x[...], then the copy back into it), one when
# a tensor, list or mask is among the indices (x[m] is a copy, written back
# by index_put_); x[...] = v is one
import torch
h = torch.zeros(4)
print(h._version)
h[1:] += 1
print(h._version)
h[0] += 1
print(h._version)
h[h > 0] += 1
print(h._version)
h[[0, 1]] += 1
print(h._version)
h[0] = 5
print(h._version)
h[1:3] = torch.tensor([7., 8.])
print(h._version)
h[1:] *= 2
print(h._version)
h[torch.tensor(1)] += 1
print(h._version)
h[None, 2] -= 3
print(h._version)
m = torch.zeros(2, 3)
m[0, 1:] -= 1
m[:, 0] /= 2
print(m._version)
m[0][1] += 1
print(m._version)
m[torch.tensor([True, False])] += 1
m[0, torch.tensor([0, 2])] *= 3
print(m._version)
w = torch.zeros(3, requires_grad=True)
with torch.no_grad():
    w[1:] -= 0.5
print(w._version, w)
g = torch.ones(3, requires_grad=True) * 1
g[1:] += 1
print(g._version, g)
print(h, m)
