# round (halves to even), floor, ceil and trunc: values, dtypes and their
# zero gradients (RoundBackward0 ...), and Python's round of a number
import torch
x = torch.tensor([[1.5, -2.5, 0.5], [2.5, 3.7, -0.2]], requires_grad=True)
r = torch.round(x)
print(r, x.round(), torch.floor(x), x.ceil(), torch.trunc(x), x.floor().long())
(r + x.floor() * 2).sum().backward()
print(x.grad)
print(round(3.7), round(2.5), round(-0.5), round(3.14159, 2))
y = torch.sigmoid(torch.tensor([0.3, -1.0, 2.0]))
print((y.round() == torch.tensor([1., 0., 1.])).float().mean())
print(torch.tensor([1, -2]).round(), torch.tensor([1.25, 2.75], dtype=torch.float32).round())
