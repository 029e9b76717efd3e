# TensorDataset of tensors whose first dimensions differ: PyTorch's assert.
import torch
from torch.utils.data import TensorDataset

ok = TensorDataset(torch.zeros(3, 2), torch.ones(3))
print(len(ok))
TensorDataset(torch.zeros(3, 2), torch.ones(4))
