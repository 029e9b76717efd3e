# x[i] op= v is x[i] = x[i].__iop__(v): a result the tensor's dtype cannot
# hold is PyTorch's RuntimeError, as for x op= v.
import torch
v = torch.tensor([True, False])
v[:] += torch.tensor([1, 0]).bool()
print(v)
i = torch.tensor([1, 2], dtype=torch.int32)
i[i > 1] += 2
print(i)
i[-1] += 0.25
