# A missing attribute of an optimizer is Python's AttributeError naming its
# class, which except takes.
import torch

opt = torch.optim.Adam([torch.zeros(1, requires_grad=True)], lr=0.1)
try:
    opt.nope
except AttributeError as e:
    print(e)
print(type(opt).__name__, opt.param_groups[0]["lr"])
opt.learning_rate
