# Python's sum, max, min, any and all iterate over a tensor's first axis
# (sum of a matrix is its column sums); torch.sum, torch.any ... reduce it
# whole, or along dim. Expected: PyTorch's.
import torch

m = torch.tensor([[1.5, -2.0, 0.0], [0.5, 4.0, -1.0]], requires_grad=True)
s = sum(m)
print(s, torch.sum(m), s.grad_fn.name())
v = torch.tensor([3.0, -1.0, 2.5], requires_grad=True)
total = sum(v)
total.backward()
print(total, total.grad_fn.name(), v.grad)
print(max(v), min(v), max(v).grad_fn.name(), sum(v, 10), sum([v, v]))
print(torch.max(m), torch.min(m, dim=1).values, sum(torch.tensor([1, 2, 3])))
print(any(v > 2), all(v > -2), any(torch.tensor([0.0, 0.0])), all(torch.tensor([])))
print(torch.any(m > 3), torch.all(m > -3), (m > 0).any(), m.all())
print(torch.any(m > 0, dim=1), torch.all(m != 0, 0), m.any(1, keepdim=True), m.all(dim=-1))
print(torch.any(torch.tensor([float("nan"), 0.0])), torch.all(torch.zeros(2, 0), 1))
print(any([0, 0, 1]), all(x > 0 for x in [1, 2]), any([]))
