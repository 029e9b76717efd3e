# x[mask] = x is index_put_ reading the elements it writes: PyTorch refuses.
import torch
c0 = torch.tensor([-2, 1, 4])
c0[c0 > 0] = c0
