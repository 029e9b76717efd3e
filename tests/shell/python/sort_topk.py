# torch.sort, argsort and topk: (values, indices) named tuples, nan last
# (first when descending), values under SortBackward0 / TopkBackward0
import torch
x = torch.tensor([[3., 1., float('nan'), 2., 1.], [0., -1., 5., 4., 2.]], requires_grad=True)
r = torch.sort(x)
print(r)
print(torch.sort(x, descending=True).indices, x.argsort(dim=1, descending=True))
v, i = x.sort(dim=0)
print(v, i)
t = torch.topk(x, 2)
print(t, torch.topk(x, 2, largest=False).indices, x.topk(3, dim=1).values)
(r.values * torch.arange(10.).view(2, 5)).sum().backward()
print(x.grad)
y = torch.tensor([0.1, 0.7, 0.2])
print(y.topk(1), y.argsort(), torch.argsort(y, descending=True))
