# type() of every kind of value, its __name__ and obj.__class__, as CPython
# and PyTorch give them: the types no builtin makes (functions, modules,
# dtypes, sizes, grad_fns, optimizers) included.
import torch
import math
x = torch.ones(2, requires_grad=True)
print(type(x), type(x).__name__, type(x) is torch.Tensor)
print(type(len), type(torch.float64), type(x.shape), type(None), type(math))
print(type(len).__name__, type(torch.float64).__name__, type(x.shape).__name__)
y = (x * 2).sum()
g = y.grad_fn
print(type(g), type(g).__name__, type((x * x).grad_fn).__name__)
print(f"{type(y.grad_fn).__name__}")
def f(): pass
print(type(f), type(f).__name__, type(type(f)))
class A:
    def m(self): pass
print(type(A), type(int), type(A) is type, isinstance(A, type), isinstance(3, type))
print(type(A().m))
opt = torch.optim.SGD([x], lr=0.1)
print(type(opt), type(opt).__name__)
print(type(torch.optim.Adam([x])).__name__, type(torch.Generator()))
print(type(g) is type(g), type(len) is type(print), type(len) is type(f), type(f) is type(g))
print(type(3).__name__, type(3.0).__name__, type(True).__name__, type('').__name__,
      type((1,)).__name__, type({}).__name__, type({1}).__name__)
print(x.__class__, x.__class__.__name__, (3).__class__, g.__class__.__name__, A().__class__.__name__)
print(len.__class__, A.__class__)
