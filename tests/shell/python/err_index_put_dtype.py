# x[mask_or_index_tensor] = v is index_put_: PyTorch takes a tensor v only
# of x's dtype (a Python number, or one element for a mask alone, converts).
import torch
torch.set_default_dtype(torch.float64)
a = torch.zeros(3)
a[a == 0] = torch.tensor(1)
a[a == 1] = torch.tensor([2.], dtype=torch.float32)
a[a == 2] = 3
a[0] = torch.tensor(4)
a[:] = torch.tensor([5, 6, 7])
print(a)
b = torch.zeros(2, 3, dtype=torch.int32)
b[:, torch.tensor([0, 1])] = torch.tensor(1, dtype=torch.int32)
b[b == 1] += 2
print(b)
a[a > 5] = torch.tensor([1, 2])
