# reshape, view, flatten, squeeze and unsqueeze are views (issue 18): a
# write through one is a write to the tensor it came from, and they share
# its version counter; transpose, indexing and x.T still copy.
import torch
x = torch.arange(12.0)
X = x.reshape(3, 4)
X[0:2, :] = 12
print(x)
v = x.view(2, 6)
v[0, 0] = -1
print(x[0], x._version, v._version, X._version)
x.view(-1)[1] = 7
print(x[:3])
w = torch.zeros(4, requires_grad=True)
u = w.view(2, 2)
with torch.no_grad():
    u[0, 0] = 5
print(w, w._version)
y = (w.view(2, 2) * 2).sum()
y.backward()
print(w.grad)
z = x.flatten()
z += 1
print(x[:3], x.unsqueeze(0).squeeze(0)[:2])
a = torch.ones(3, dtype=torch.int64)
b = a.reshape(3, 1)
b.mul_(3)
print(a, b.dtype)
e = torch.tensor([1.0, 2.0], requires_grad=True)
f = e.exp()
g = f.view(2)
with torch.no_grad():
    g.zero_()
print(f)
