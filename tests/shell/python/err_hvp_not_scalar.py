# hvp of a function that returns several elements: PyTorch's RuntimeError,
# on the call's line (the message names hvp).
import torch
from torch.autograd.functional import hvp, jvp
x = torch.tensor([1.0, 2.0])
print(jvp(torch.sin, x, torch.ones(2)))
hvp(lambda t: t ** 2, x, torch.ones(2))
