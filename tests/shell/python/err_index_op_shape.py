# x[i] op= v is x[i].__iop__(v), in place: v may not grow x[i]'s shape.
import torch
torch.set_default_dtype(torch.float64)
c1 = torch.full((1, 3), -3.0, dtype=torch.float32)
c1[c1 < 0] -= torch.tensor([1., 2., 3.])
c1[0] += 1
print(c1)
c1[c1 < 0] -= torch.full((1, 3), 2.0)
