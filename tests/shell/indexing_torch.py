"""Writes tests/shell/indexing.ag and tests/shell/indexing.out: indexing
cases run by PyTorch 1.13, whose printed results are the expected output
of ag running the same lines (ag's syntax is Python's for all of them).

    /usr/bin/python3 tests/shell/indexing_torch.py

Expression lines print the value as PyTorch prints it (float64 as the
default dtype, so no dtype suffix; ag names grad_fn without the trailing
0). A `backward(...)` line prints NAME.grad for each leaf that received a
gradient, in the order the names were bound, as ag's backward does, and
then resets those gradients (`NAME.grad = None` lines in the .ag).
"""
import os
import re
import torch
from torch import tensor, arange, zeros, ones

torch.set_default_dtype(torch.float64)

CASES = """
x = tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
x[1]
x[-1]
x[1, 2]
x[-1, -3]
x[:, 1]
x[1:]
x[:1]
x[1:, ::2]
x[:, 0:3:2]
x[:, 5:]
x[:, -2:]
x[0, 1:2]
x[None, 1]
x[0, None]
x[:, None, 1]
x[:, [0, 2, 2]]
x[[1, 0]]
x[[0, 1], [2, 0]]
x[[1], 1:]
x[1:, [0, 2]]
x[:, [[0, 1], [2, 2]]]
x[x > 2]
x[x[:, 0] > 2]
x[tensor([True, False])]
x[arange(2), tensor([2, 0])]
y = x[[1, 1, 0]]
y
backward(sum(y * y))
z = x[:, [0, 0, 2]] * tensor([1., 2., 3.])
backward(sum(z))
backward(sum(x[x > 2] ** 2))
backward(sum(x[[0, 0, 1], [1, 1, 1]]))
backward(sum(x[1, ::2] * 10))
w = tensor([[[1., 2.], [3., 4.]], [[5., 6.], [7., 8.]]], requires_grad=True)
w[0, :, 1]
w[[0, 1], :, [1, 0]]
w[:, [0, 1], [1, 0]]
w[1, [0, 1], 0]
w[..., 1] if False else w[:, :, 1]
backward(sum(w[[1, 0], :, [0, 0]] * tensor([[1., 2.], [3., 4.]])))
x3 = arange(24.).reshape(2, 3, 4)
x3[1, :, [0, 3]]
x3[[1, 0], 2, [0, 3]]
x3[[1, 0], :, 3]
x3[[1, 0], :, [3, 0]]
x3[:, [[0], [2]], [1, 3]]
x3[1, :, x3[0, 0] > 1]
s = tensor(5.)
s[None]
v = arange(10.)
v[2:8:3]
v[v % 3 == 0]
v[[9, 0, 9]]
v[-3:]
v[100:]
a = zeros(2, 3)
a[0] = 1
a[:, 1] += tensor([10., 20.])
a[a > 5] = -1
a
a[1, [0, 2]] = tensor([7., 8.])
a[:, None, 0] *= 3
a
a[[0, 0], [1, 1]] = tensor([5., 6.])
a
u = arange(5.)
u[[0, 0, 1]] += 1
u
u[1:4] = 0
u[-1] -= 10
u
p = tensor([1., 2., 3.], requires_grad=True)
backward(sum(p * p))
p[0] = 100
p
p.requires_grad
p.is_leaf
m = arange(4.) > 1
m[0] = True
m
"""


ASSIGNMENT = re.compile(r"^([A-Za-z_]\w*)\s*=[^=]")
INDEX_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*\[.*\]\s*[-+*/]?=[^=]")


def leaves(ns, order):
    return [n for n in order if isinstance(ns.get(n), torch.Tensor) and ns[n].is_leaf
            and ns[n].requires_grad]


def shown(t):
    return str(t).replace("Backward0>", "Backward>")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ns = {"tensor": tensor, "arange": arange, "zeros": zeros, "ones": ones, "sum": torch.sum}
    order, ag_lines, out = [], [], []
    for line in CASES.strip().splitlines():
        if " if False else " in line:  # ag has no ..., the torch side checks they agree
            a, b = line.split(" if False else ")
            assert torch.equal(eval(a, ns), eval(b, ns))
            line = b
        ag_lines.append(line)
        if line.startswith("backward("):
            eval(line[len("backward("):-1], ns).backward()
            for n in leaves(ns, order):
                if ns[n].grad is not None:
                    pad = " " * len(n + ".grad = ")
                    text = "\n".join((pad + l if l and i else l) for i, l in
                                     enumerate(shown(ns[n].grad).split("\n")))
                    out.append("%s.grad = %s" % (n, text))
                    ns[n].grad = None
                    ag_lines.append("%s.grad = None" % n)
        elif INDEX_ASSIGNMENT.match(line):
            with torch.no_grad():  # ag's rule: a leaf stays a leaf, nothing recorded
                exec(line, ns)
        elif ASSIGNMENT.match(line):
            name = ASSIGNMENT.match(line).group(1)
            exec(line, ns)
            if name not in order:
                order.append(name)
        else:
            out.append(shown(eval(line, ns)))
    with open(os.path.join(here, "indexing.ag"), "w") as f:
        f.write("# Made by indexing_torch.py from PyTorch 1.13: do not edit by hand.\n")
        f.write("\n".join(ag_lines) + "\n")
    with open(os.path.join(here, "indexing.out"), "w") as f:
        f.write("\n".join(out) + "\n")


main()
