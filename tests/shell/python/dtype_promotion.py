# PyTorch's type promotion (issue 18): int op float is float, int / int is
# float, int // int int, comparisons bool, sum and argmax of anything int64;
# a 0-d operand or a Python number counts only when of a higher category.
import torch
i = torch.tensor([4, 7, -9])
f = torch.tensor([0.5, 1.5, 2.5])
h = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float32)
i32 = torch.tensor([1, 2, 3], dtype=torch.int32)
b = torch.tensor([True, False, True])
print(i + f, i * 2, i * 2.5, i / 2, i // 2, i % 4, -i, i ** 2, 2 ** i[:2])
print(h + f, (h + f).dtype, h * 2.5, (h * 2.5).dtype, h + torch.tensor(1.0), i32 + 1, (i32 + 1).dtype)
print(i32 + torch.tensor(5), (i32 + torch.tensor(5)).dtype, i32 * 2.5, i32 + i, (i32 + i).dtype)
print(i32 + h, (i32 + h).dtype, b + b, b * 3, b + 1.5, b.dtype, (b & b).dtype)
print(i > 0, f == 1.5, (h < 2).dtype, i.sum(), b.sum(), h.sum(), i32.sum().dtype)
print(i.argmax(), f.argmin(), torch.argmax(h), i.max(), i32.min(), i.abs(), i.relu())
print(torch.exp(i), torch.sqrt(i32), torch.tanh(b), i.float().mean(), (i == i).float().mean())
print(torch.where(b, i, f), torch.where(b, i, 0), torch.where(b, h, h).dtype)
print(torch.cat([i, f]), torch.stack([i, i]), torch.cat([i32, i32]).dtype, torch.cat([h, f]).dtype)
print(i.reshape(3, 1), i.T, i[1:], i[torch.tensor([0, 2])], f[i.abs() % 3], f[b])
big = torch.tensor([2147483647], dtype=torch.int32)
print(big + 1, big * 2)
print(torch.tensor([[1, 2], [3, 4]]) @ torch.tensor([[1], [1]]))
print(h.softmax(0), torch.nn.functional.mse_loss(h, h), (h * f).dtype)
