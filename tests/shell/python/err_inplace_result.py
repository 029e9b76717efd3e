import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x.exp()  # ExpBackward0 saves its result, h
h.add_(1)
print(h.grad_fn.name())
h.sum().backward()
print(x.grad)
