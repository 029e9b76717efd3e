# torch.max / torch.min with a dim: PyTorch's (values, indices) named tuple.
# The indices print as PyTorch's int64 only once ag has integer tensors
# (issue 18): here they are read through float() and .tolist() of ints.
import torch
x = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True)
r = torch.max(x, 1)
v, i = r
print(v, [int(k) for k in i.tolist()])
print(r[0], r.values, [int(k) for k in r.indices.tolist()], len(r))
m = x.min(dim=0, keepdim=True)
print(m.values, [[int(k) for k in row] for row in m.indices.tolist()])
print(torch.max(x), x.max(0).values)
s = x.max(1).values.sum()
s.backward()
print(x.grad)
print(x.max(1).indices.requires_grad)
