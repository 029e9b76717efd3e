import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
print(model(torch.ones(2, 3)).shape)
out = model(torch.ones(2, 5))
print(out)
