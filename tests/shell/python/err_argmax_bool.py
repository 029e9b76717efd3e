# argmax and argmin of a bool tensor: PyTorch has no kernel ("argmax_cpu" not
# implemented for 'Bool'), but along a dimension of size 1 it runs none.
import torch
m = torch.tensor([[False, True, False]])
print(m.argmax(0), torch.argmin(m, 0, keepdim=True), torch.tensor([[True], [False]]).argmax(-1))
print(m.argmax(1))
