# torch.nn.utils.clip_grad_norm_ and clip_grad_value_, as PyTorch 1.13's
# (the norm of the per-gradient norms, max_norm / (total + 1e-6) clamped
# at 1, every gradient scaled in place), in a training loop
import math
import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_value_
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x = torch.randn(8, 3)
y = torch.randint(0, 2, (8,))
for epoch in range(3):
    opt.zero_grad(set_to_none=True)
    out = model(x)
    loss = nn.functional.cross_entropy(out, y)
    loss.backward()
    total = nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    opt.step()
    print(epoch, f"{loss.item():.12f} {total.item():.12f}", model[2].bias.grad)
w = torch.tensor([3.0, -4.0], requires_grad=True)
(w * w).sum().backward()
print(torch.nn.utils.clip_grad_norm_(w, 1.0, norm_type=math.inf), w.grad.tolist())
print(torch.nn.utils.clip_grad_norm_([w], 100.0, 1), w.grad.tolist())
print(torch.nn.utils.clip_grad_norm_([torch.zeros(2, requires_grad=True)], 1.0))
clip_grad_value_(w, 0.25)
print(w.grad)
