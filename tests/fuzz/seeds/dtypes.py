import torch
x = torch.tensor([1, 2, 3])
m = (x > 1) & (x < 3) | ~(x == 2)
y = x.float() * 2.5 + torch.tensor([1.5, 2.0, 0.5], dtype=torch.float32)
z = torch.zeros((2, 2), dtype=torch.int32)
z[0, 1] += 3
k = 5 ^ 3 & 1 | ~2
w = torch.tensor([0.5, -1.0], requires_grad=True)
loss = (w.float() * w).sum()
loss.backward()
print(x.dtype, m, y, z, k, w.grad, x.sum(), x.argmax(), x / 2, x // 2, y.long(), m.int())
