import torch
w = torch.zeros(2, requires_grad=True)
opt = torch.optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)
