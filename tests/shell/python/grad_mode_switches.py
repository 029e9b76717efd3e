# The grad mode's switches: with torch.inference_mode() (no_grad here),
# with torch.set_grad_enabled(mode), @torch.inference_mode(), and
# torch.set_grad_enabled / torch.is_grad_enabled as calls
import torch
x = torch.ones(2, requires_grad=True)
with torch.inference_mode():
    y = x * 2
print(y.requires_grad)
with torch.set_grad_enabled(False):
    z = x * 2
print(z.requires_grad)
train = True
with torch.set_grad_enabled(train):
    w = x * 2
print(w.requires_grad, torch.is_grad_enabled())
@torch.inference_mode()
def f(a):
    return a * 3
print(f(x).requires_grad)
torch.set_grad_enabled(False)
print((x * 2).requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(True)
print((x * 2).requires_grad)
