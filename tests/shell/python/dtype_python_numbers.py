# A Python number beside a tensor is PyTorch's wrapped number: it ranks
# below a 0-d tensor in promotion, and a float is rounded to float32 before
# a float32 op (found by tests/diff's dtypes programs).
import torch
x = torch.tensor(0.5, dtype=torch.float32)
print((x * 0.0).dtype, (x + 2.5).dtype, (2.5 - x).dtype)
i = torch.tensor(1000).int()
print((i - 4).dtype, (i * True).dtype, (i + 2.5).dtype)
b = torch.tensor(True)
print((b + 1).dtype, (b * 2.5).dtype, (b & False).dtype)
print((torch.tensor([2], dtype=torch.int32) + torch.tensor(3)).dtype)
c = torch.tensor([-0.5290198983090271, -2.099571565278816], dtype=torch.float32)
print((c + 2.1144957425270103).tolist())
print((c * 0.1).tolist(), (c - 0.7).tolist(), (0.7 - c).tolist())
print(c.add(0.1).tolist(), c.mul(0.3).tolist())
t = torch.tensor([0.1], dtype=torch.float32)
print(t < 0.1, t == 0.1, t > 0.1)
x0 = torch.tensor(-3.0, dtype=torch.float32)
print((x0 / 1.216).tolist(), torch.where(x0 < 0, x0 / 1.216, x0).dtype)
# a float64 0-d tensor beside float32 ones is cast to float32 first too
x1 = torch.tensor(2.7240710260618064, requires_grad=True)
w = torch.where(torch.tensor([[-1.498], [1.0]], dtype=torch.int32) > 0, x1,
                torch.tensor([-3.0, 2.661], dtype=torch.float32))
print(w.dtype, (w == x1).tolist(), (w - x1).tolist(), (w * x1).dtype)
t = torch.tensor(0.1)
f = torch.tensor([0.1, 0.2], dtype=torch.float32, requires_grad=True)
y = f * t + t
print(y.tolist(), (f == t).tolist())
y.sum().backward()
print(f.grad.tolist(), f.grad.dtype)
