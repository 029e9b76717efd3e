import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    w.add_(1)
print(w)
w.mul_(2)
