# xavier_uniform_ of a 1-D tensor: fan in and fan out need two dimensions.
import torch
from torch import nn

nn.init.xavier_uniform_(torch.empty(3))
