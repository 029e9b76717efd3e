import torch
w = torch.tensor([2.0, 3.0], requires_grad=True)
h = w * 2
a = h * w  # saves h for w's gradient
h[0] = 1   # recorded: a's saved h has changed
print(h)
a.sum().backward()
