# float32 arithmetic with Python numbers (issue 18): PyTorch converts the
# number to float32 first (x * 0.1 multiplies by 0.1f, x > 0.1 compares
# with 0.1f), and a number never widens a float32 tensor, even a 0-d one.
import torch
x = torch.tensor([0.1, 0.2, 0.3], dtype=torch.float32)
print(x > 0.1, x == 0.1, x * 3 == 0.3, (x + 0.2).tolist(), (1 / 3 - x).tolist())
print((x * 0.7).tolist(), (x / 0.7).tolist(), (x - 1 / 3).tolist(), torch.maximum(x, torch.tensor(0.2)))
s = x.sum()
print(s * 0.1, (s * 0.1).item(), (s + 2).dtype, (s > 0.6).item(), s * torch.tensor(2.5))
w = torch.tensor([0.5, 1.5], dtype=torch.float32, requires_grad=True)
y = (w * 0.1 + 1 / 3) * (w - 0.7)
y.sum().backward()
print(y, y.tolist(), w.grad.tolist())
