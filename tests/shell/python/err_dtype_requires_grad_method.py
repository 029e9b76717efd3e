import torch
print("before")
torch.tensor([1, 2]).requires_grad_()
