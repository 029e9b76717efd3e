# torch.no_grad(), enable_grad() and inference_mode() as values: a context
# manager and a decorator (torch.no_grad()(f), from torch import no_grad);
# iter(callable, sentinel).
import torch
from torch import no_grad
def f(x):
    return x * 2
x = torch.ones(1, requires_grad=True)
print(torch.no_grad()(f)(x), torch.enable_grad()(f)(x), torch.is_grad_enabled())
with no_grad():
    y = x * 3
print(y.requires_grad, torch.is_grad_enabled())
with torch.no_grad():
    z = x * 3
print(z.requires_grad)
@torch.no_grad()
def g(v):
    return v + 1
print(g(x).requires_grad)
m = torch.inference_mode()
with m:
    w = x + 1
print(w.requires_grad, torch.is_grad_enabled())
it = iter([1, 2, 3, 4, 5])
print(list(iter(lambda: next(it, None), 3)))
it = iter([1, 2, None, 4])
print(list(iter(lambda: next(it), None)))
