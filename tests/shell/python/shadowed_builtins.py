# A script that rebinds builtin names (Karpathy's gpt.py loops "for iter in
# range(...)") does not change torch.nn's: a module's globals are its own.
# Expected: PyTorch's.
import torch
import torch.nn as nn
len = 0
iter = 5
isinstance = None
model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
print([type(h).__name__ for h in ml], sum(p.numel() for p in model.parameters()))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
print(model)
