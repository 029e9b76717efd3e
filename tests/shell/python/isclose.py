# torch.isclose and torch.allclose: PyTorch's rule (|a - b| <= atol +
# |rtol * b|, finite; a == b; nan only with equal_nan), broadcasting,
# integers, and the dtype check. Expected: PyTorch's.
import torch

a = torch.tensor([1.0, 2.0, float("nan"), float("inf"), -float("inf"), 1e-9, 100.0])
b = torch.tensor([1.0 + 1e-6, 2.1, float("nan"), float("inf"), float("inf"), 0.0, 100.001])
print(torch.isclose(a, b))
print(torch.isclose(a, b, equal_nan=True), a.isclose(b, rtol=0.1))
print(torch.isclose(a, b, rtol=0, atol=0), torch.isclose(a, b, atol=1e-3, rtol=0))
print(torch.allclose(a, b), torch.allclose(a[:2], b[:2], rtol=0.1), torch.allclose(a, a))
print(torch.allclose(a, a, equal_nan=True), a[:2].allclose(b[:2], atol=0.2))
print(torch.isclose(torch.tensor([[1.0], [2.0]]), torch.tensor([1.0, 2.00001])))
print(torch.isclose(torch.tensor([1, 2, 3]), torch.tensor([1, 3, 3])))
print(torch.isclose(torch.tensor([1, 2]), torch.tensor([2, 2]), rtol=0.5, atol=0))
x = torch.tensor([0.1, 0.2], requires_grad=True)
print(torch.isclose(x * 3, torch.tensor([0.3, 0.6])), torch.allclose(x.sum(), torch.tensor(0.3)))
