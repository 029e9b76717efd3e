# from __future__ import ...: Python 3 has every feature, so nothing to do
# (the PyTorch 60-minute blitz begins with print_function)
from __future__ import print_function, division
from __future__ import annotations
import torch
print(7 / 2, torch.ones(2) / 2)
