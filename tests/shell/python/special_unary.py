# tan, atan, asin, acos, erf, log1p, expm1 and rsqrt: values, gradients,
# second derivatives, grad_fn names, float32, integers, the edges of their
# domains, and the in-place forms. Expected: PyTorch's.
import torch

x = torch.tensor([0.3, -0.7, 0.95, 0.0, -0.2], requires_grad=True)
fns = [("tan", torch.tan), ("atan", torch.atan), ("asin", torch.asin), ("acos", torch.acos),
       ("erf", torch.erf), ("log1p", torch.log1p), ("expm1", torch.expm1),
       ("rsqrt", lambda v: torch.rsqrt(v + 1))]
for name, f in fns:
    y = f(x)
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    gg, = torch.autograd.grad(g.sum(), x)
    print(name, y.grad_fn.name())
    print(y.tolist())
    print(g.tolist())
    print(gg.tolist())

# float32 through each, and its gradient
xf = torch.tensor([0.3, -0.7, 0.95, 0.5], dtype=torch.float32, requires_grad=True)
total = torch.tan(xf) + torch.atan(xf) + torch.asin(xf) + torch.acos(xf) + torch.erf(xf)
total = total + torch.log1p(xf) + torch.expm1(xf) + torch.rsqrt(xf + 1)
total.sum().backward()
print(total)
print(xf.grad, xf.grad.dtype)

# integers become the default float type; the edges of the domains
print(torch.erf(torch.tensor([1, 2])), torch.log1p(torch.tensor([0, 3], dtype=torch.int32)))
print(torch.asin(torch.tensor([1.0, -1.0, 1.5])), torch.acos(torch.tensor([1.0, -1.0, -2.0])))
print(torch.log1p(torch.tensor([-1.0, -2.0, 1e-10])), torch.expm1(torch.tensor([1e-10, -800.0, 800.0])))
print(torch.rsqrt(torch.tensor([0.0, -0.0, -1.0, 4.0])), torch.tan(torch.tensor([1.5707963267948966])))
print(torch.atan(torch.tensor([float("inf"), float("-inf")])), torch.erf(torch.tensor([-6.0, 6.0])))

# methods and in-place forms
v = torch.tensor([0.25, -0.5, 0.75])
print(v.tan(), v.erf(), v.abs().rsqrt())
w = v.clone()
w.atan_()
w.expm1_()
print(w)
leaf = torch.tensor([0.5], requires_grad=True)
print(torch.asin(leaf).grad_fn.name(), torch.expm1(leaf * 2).grad_fn.name())
