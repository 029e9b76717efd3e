# torch.Tensor(data) makes the default floating dtype, as PyTorch's legacy
# constructor; item() of several elements is PyTorch's ValueError.
import torch
print(torch.Tensor([1, 2]), torch.Tensor([[True, False]]), torch.Tensor([0.5]).dtype)
x = torch.Tensor([1, 2])
print(isinstance(x, torch.Tensor), type(x).__name__)
try:
    torch.ones(3).item()
except ValueError as e:
    print("ValueError:", e)
try:
    torch.zeros("a")
except TypeError as e:
    print("a TypeError")
