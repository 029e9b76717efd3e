# Sequential and ModuleList: indexing, len, append and their printed trees.
import torch.nn as nn
m = nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])
print(len(m), m[1], m)
print(nn.Sequential(nn.Tanh()).append(nn.ReLU()))
