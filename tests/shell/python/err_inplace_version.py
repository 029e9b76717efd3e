import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
z = (y * y).sum()
with torch.no_grad():
    y += 1
print(y)
z.backward()
print(x.grad)
