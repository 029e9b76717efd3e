import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
h = x * w
a = h * w  # saves h for w's gradient
h.mul_(2)  # recorded: but a's saved h has changed
print(h)
(h.sum() + a.sum()).backward()
print(x.grad)
