# div saves its operands, not its result (PyTorch's formula computes a / b
# again): h = w / x; h += 1 differentiates, float32 beside float64 too
import torch
x = torch.tensor([[2.0], [-2.69]], requires_grad=True)
w = torch.tensor([-3.0, -0.846], dtype=torch.float32, requires_grad=True)
h = w / x
h += 1
(h * torch.tensor([[2.3, 0.7], [0.308, 1.5]])).sum().backward()
print(x.grad, w.grad)
a = torch.tensor([1.5, 2.5], requires_grad=True)
b = torch.tensor([0.3, -0.7], dtype=torch.float32, requires_grad=True)
q = a.float() / b
q.sum().backward()
print(a.grad, b.grad)
