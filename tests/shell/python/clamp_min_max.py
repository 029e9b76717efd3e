# clamp_min and clamp_max (fast.ai's relu: x.clamp_min(0.)), and clamp's
# grad_fn names: ClampBackward1 for number bounds, ClampMin/MaxBackward0.
import torch
x = torch.tensor([-1.0, 2.0, 0.5], requires_grad=True)
print(x.clamp(min=0), x.clamp_min(0), torch.clamp_min(x, 0.5), x.clamp_max(1), x.clamp(-0.5, 1), torch.clamp(x, max=0.7))
x.clamp_min(0).sum().backward()
print(x.grad)
print(x.clamp(min=torch.tensor(0.0)), (x * 2).clamp_min(0).grad_fn.name())
