# Indexing past the end of a TensorDataset: the tensor's IndexError.
import torch
from torch.utils.data import TensorDataset

ds = TensorDataset(torch.zeros(5, 2), torch.ones(5))
print(ds[4])
print(ds[5])
