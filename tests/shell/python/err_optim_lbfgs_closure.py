# LBFGS.step needs the closure that reevaluates the loss: PyTorch's TypeError.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
opt = torch.optim.LBFGS([x])
print(opt.param_groups[0]['lr'])
opt.step()
print('not reached')
