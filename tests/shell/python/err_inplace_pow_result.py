# x ** t (PowBackward1) saves its result even when t does not require grad
# (PyTorch 1.13 saves a result whenever it records): changing it is refused
import torch
x = torch.tensor([0.5, 2.0], requires_grad=True)
y = x ** torch.ones(2)
y.sub_(1)
(y * x).sum().backward()
