r"""PyTorch 1.13's printing of what tests/shell/activations.sh computes in ag:
the same values and gradients, line for line, in the same order (ag's
[exit] lines, :help lines and error messages are ag's own).

    /usr/bin/python3 tests/shell/activations_torch.py > /tmp/activations_torch.txt

Compare with the golden output (no grad_fn is printed, so PyTorch's
trailing digit in their names does not matter):

    grep -v -e '^\[exit' -e '^  [a-z_0-9]*: grad' -e 'error:' tests/shell/activations.out |
        diff - /tmp/activations_torch.txt
"""
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
nan, inf = float("nan"), float("inf")
T = torch.tensor


def x():
    return T([-4., -3, -1, -0.5, 0, 0.5, 3, 6, 7])


def show(v):
    print(v)


def grads(**named):
    """backward has run: ag prints NAME.grad = ... for each leaf, in order."""
    for name, t in named.items():
        text = str(t.grad).replace("\n", "\n" + " " * (len(name) + 8))
        print("%s.grad = %s" % (name, text))


print("--- values, with the defaults and with arguments")
show(F.leaky_relu(x()))
show(F.leaky_relu(x(), 0.2))
show(F.leaky_relu(x(), negative_slope=-1.5))
show(F.elu(x()))
show(F.elu(x(), alpha=0.5))
show(F.gelu(x()))
show(F.gelu(x(), approximate="tanh"))
show(F.silu(x()))
show(F.relu6(x()))
show(F.hardsigmoid(x()))
show(F.hardswish(x()))
show(F.softplus(x()))
show(F.softplus(x(), beta=2, threshold=10))
show(F.softplus(x(), 0.5))
show(torch.clamp(x(), -1, 3))
show(torch.clamp(x(), max=0.5))
show(torch.where(x() > 0, x(), T(0.)))
show(torch.maximum(x(), T(0.5)))
show(torch.minimum(x(), T([[0.], [6]])))
print("--- methods and torch.NAME")
show(F.leaky_relu(x(), 0.1))
show(F.elu(x()))
show(F.gelu(x()))
show(F.silu(x()))
show(F.relu6(x()))
show(F.hardsigmoid(x()))
show(F.hardswish(x()))
show(F.softplus(x(), beta=2))
show(x().clamp(min=0))
show(x().maximum(T(1.)))
show(x().minimum(T(1.)))
show(torch.clamp(x(), min=T([[0.], [1]])))
show(torch.where(x() < 0, -x(), T([[1.], [2]])))
show(torch.maximum(x(), T(2.)))
show(torch.minimum(x(), T(2.)))
print("--- nan, inf, ties")
v = T([nan, inf, -inf, 0, -0.])
show(F.leaky_relu(v))
show(F.elu(v))
show(F.softplus(v))
show(F.relu6(v))
show(torch.clamp(v, -1, 1))
show(torch.maximum(T([nan, 1, 2, 3]), T([0, nan, 2, 1])))
show(torch.minimum(T([nan, 1, 2, 3]), T([0, nan, 2, 1])))
print("--- gradients")


def g():
    return T([-4., -3, -1, 0, 1, 2.5, 6, 7], requires_grad=True)


for f in [lambda t: F.leaky_relu(t, negative_slope=0.2), lambda t: F.elu(t, alpha=0.5),
          F.gelu, lambda t: F.gelu(t, approximate="tanh"), F.silu, F.relu6, F.hardsigmoid,
          F.hardswish]:
    xg = g()
    f(xg).sum().backward()
    grads(x=xg)
xg = T([-4., 0, 4.9, 5, 5.1, 20, 21], requires_grad=True)
F.softplus(xg, beta=2, threshold=10).sum().backward()
grads(x=xg)
xg, lo, hi = T([-2., -1, 0, 1, 2], requires_grad=True), T(-1., requires_grad=True), \
    T([1., 1, 1, 1, 0.5], requires_grad=True)
torch.clamp(xg, lo, hi).sum().backward()
grads(x=xg, lo=lo, hi=hi)
xg = T([-2., -1, 0, 1, 2], requires_grad=True)
xg.clamp(min=0).sum().backward()
grads(x=xg)
a, b = T([1., 2, 3], requires_grad=True), T([[10.], [20]], requires_grad=True)
torch.where(T([1., 0, 1]) != 0, a, b).sum().backward()
grads(a=a, b=b)
for fn in (torch.maximum, torch.minimum):
    a, b = T([1., 2, 3], requires_grad=True), T([1., 1, 4], requires_grad=True)
    fn(a, b).sum().backward()
    grads(a=a, b=b)
print("--- :help shows the rule")
print("--- mistakes")
