import torch
w = torch.zeros(4, requires_grad=True)
u = w.view(2, 2)
u[0, 0] = 5
