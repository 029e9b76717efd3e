# layer_norm over a shape the input does not end with: PyTorch's RuntimeError.
import torch
import torch.nn as nn

ln = nn.LayerNorm(4)
print(ln)
print(ln(torch.ones(2, 3)))
