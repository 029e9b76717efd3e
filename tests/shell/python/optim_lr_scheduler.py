# Learning-rate schedulers (torch.optim.lr_scheduler): PyTorch's chainable
# StepLR and ExponentialLR, MultiStepLR and LambdaLR.
import torch
from torch.optim.lr_scheduler import StepLR
w = torch.tensor([1.0, -2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
sched = StepLR(opt, step_size=2, gamma=0.5)
exp = torch.optim.lr_scheduler.ExponentialLR(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0), gamma=0.9)
for epoch in range(6):
    opt.zero_grad()
    (w ** 2).sum().backward()
    opt.step()
    sched.step()
    exp.step()
    print(epoch, sched.get_last_lr(), exp.get_last_lr(), w.tolist())
lam = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1 / (e + 1))
ms = torch.optim.lr_scheduler.MultiStepLR(torch.optim.Adam([w], lr=0.01), milestones=[1, 3], gamma=0.1)
for e in range(4):
    lam.step()
    ms.step()
    print(lam.get_last_lr(), ms.get_last_lr(), opt.param_groups[0]['initial_lr'])
