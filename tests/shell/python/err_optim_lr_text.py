import torch
w = torch.tensor([1.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
(w * w).sum().backward()
opt.param_groups[0]["lr"] = "fast"
opt.step()
