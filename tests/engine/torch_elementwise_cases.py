"""Writes tests/engine/torch_elementwise_cases.h: PyTorch 1.13's values and
gradients of ag's activations (leaky_relu, elu, gelu, silu, relu6,
hardsigmoid, hardswish, softplus) and of clamp and where at their kinks (0,
6, +-3, the bounds, softplus's threshold and the doubles beside them), at
inf, nan and +-0, with inf, nan and 0 incoming gradients; and a few
broadcasting cases whole, minimum and maximum among them (their point
cases, ties and nan, are torch_cases.py's binary ones). For
test_elementwise.c.

    /usr/bin/python3 tests/engine/torch_elementwise_cases.py > tests/engine/torch_elementwise_cases.h

Every point case is computed on one-element tensors, so PyTorch takes its
scalar kernels, not its vectorised ones (Sleef), whose last bit can differ
and which, at a few points, give another gradient: elu and relu6 at nan,
hardswish at 3 and at nan. ag follows the scalar kernels. clamp's bounds
are tensors (PyTorch's clamp.Tensor), as ag's are.
"""
import math
import torch
import torch.nn.functional as F

from torch_cases import D, INF, NAN, c, t


def beside(v):
    """The doubles just below and above v."""
    return [math.nextafter(v, -INF), math.nextafter(v, INF)]


# Kinks and their neighbours, the usual edge values, and a few ordinary ones.
ACT_X = ([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.5, 3.0, -3.0, 6.0, -6.0, 5.0, 10.0, 20.0,
          -20.0, 40.0, 1.5, -4.0, INF, -INF, NAN, 1e-310, -1e-310, 800.0, -800.0]
         + beside(0.0) + beside(3.0) + beside(-3.0) + beside(6.0) + beside(20.0) + beside(5.0))
ACT_G = [1.0, -2.0, 0.0, INF, NAN]

# (op, approximate, numbers): the numbers in the signature's order.
ACTIVATIONS = [
    ("leaky_relu", "", [0.01]), ("leaky_relu", "", [0.2]), ("leaky_relu", "", [-1.5]),
    ("elu", "", [1.0]), ("elu", "", [0.5]), ("elu", "", [2.0]),
    ("gelu", "none", []), ("gelu", "tanh", []),
    ("silu", "", []), ("relu6", "", []), ("hardsigmoid", "", []), ("hardswish", "", []),
    ("softplus", "", [1.0, 20.0]), ("softplus", "", [2.0, 10.0]), ("softplus", "", [0.5, 3.0]),
]


def activation(op, approximate, p, x):
    if op == "gelu":
        return F.gelu(x, approximate=approximate)
    return getattr(F, op)(x, *p)


def activation_cases():
    for op, approximate, p in ACTIVATIONS:
        nums = (p + [0.0, 0.0])[:2]
        for g in ACT_G:
            for x in ACT_X:
                xt = t(x)
                y = activation(op, approximate, p, xt)
                y.backward(torch.tensor(g, dtype=D))
                yield '    {"%s", "%s", {%s, %s}, %s, %s, %s, %s},' % (
                    op, approximate, c(nums[0]), c(nums[1]), c(x), c(g), c(y.item()),
                    c(xt.grad.item()))


# clamp: x against bounds (None: not given), inverted, equal, nan, signed zeros.
CLAMP_X = [-2.0, -1.0, -0.5, 0.0, -0.0, 0.5, 1.0, 2.0, 6.0, 7.0, INF, -INF, NAN] + beside(1.0)
CLAMP_BOUNDS = [(0.0, 6.0), (-1.0, 1.0), (0.0, None), (None, 0.0), (1.0, None), (None, 1.0),
                (1.0, 1.0), (2.0, -1.0), (NAN, 1.0), (0.0, NAN), (NAN, None), (None, NAN),
                (-INF, INF), (INF, None), (None, -INF), (0.0, -0.0), (-0.0, 0.0)]
SELECT_G = [1.0, INF, NAN]


def clamp_cases():
    for lo, hi in CLAMP_BOUNDS:
        for g in SELECT_G:
            for x in CLAMP_X:
                xt = t(x)
                lt = None if lo is None else t(lo)
                ht = None if hi is None else t(hi)
                y = torch.clamp(xt, lt, ht)
                y.backward(torch.tensor(g, dtype=D))
                dlo = 0.0 if lt is None or lt.grad is None else lt.grad.item()
                dhi = 0.0 if ht is None or ht.grad is None else ht.grad.item()
                yield '    {%s, %s, %s, %d, %d, %s, %s, %s, %s, %s},' % (
                    c(x), c(0.0 if lo is None else lo), c(0.0 if hi is None else hi),
                    lo is not None, hi is not None, c(g), c(y.item()), c(xt.grad.item()),
                    c(dlo), c(dhi))


WHERE_C = [1.0, 0.0, -0.0, NAN, -2.0, INF]
WHERE_AB = [(1.5, -2.0), (NAN, 3.0), (-0.0, 0.0), (INF, -INF)]


def where_cases():
    for g in SELECT_G:
        for cond in WHERE_C:
            for a, b in WHERE_AB:
                at, bt = t(a), t(b)
                y = torch.where(torch.tensor(cond, dtype=D) != 0, at, bt)
                y.backward(torch.tensor(g, dtype=D))
                yield '    {%s, %s, %s, %s, %s, %s, %s},' % (
                    c(cond), c(a), c(b), c(g), c(y.item()), c(at.grad.item()), c(bt.grad.item()))


# Broadcasting, whole: the operands' shapes differ, and the gradients are
# summed back to each operand's shape (an operand of None is not given).
def broadcast_cases():
    x = [[-2.0, 0.5, 3.0], [1.0, -0.25, 7.0]]
    cases = [
        ("where", [[[1.0], [0.0]], [4.0, 5.0, 6.0], [[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0]]],
         [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
        ("where", [[1.0, 0.0, 1.0], [[2.0], [3.0]], 7.0], [[1.0, -1.0, 2.0], [0.5, 3.0, -2.0]]),
        ("clamp", [x, [-1.0, 0.0, 1.0], [[2.0], [5.0]]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
        ("clamp", [x, [[0.0], [-1.0]], None], [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]),
        ("clamp", [x, None, [1.0, 0.0, 2.0]], [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]),
        ("maximum", [x, [0.5, 0.5, 3.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
        ("minimum", [[[1.0], [-0.25]], x], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    ]
    for k, (op, operands, g) in enumerate(cases):
        ts = [None if v is None else torch.tensor(v, dtype=D, requires_grad=True)
              for v in operands]
        if op == "where":
            y = torch.where(ts[0].detach() != 0, ts[1], ts[2])
        elif op == "clamp":
            y = torch.clamp(*ts)
        else:
            y = getattr(torch, op)(*ts)
        y.backward(torch.tensor(g, dtype=D))
        items = []
        for i, tt in enumerate(ts):
            if tt is None:
                items.append("{0, {0}, 0, {0}, {0}}")
                continue
            grad = [0.0] * tt.numel() if (op == "where" and i == 0) else tt.grad.flatten().tolist()
            items.append("{%d, {%s}, 1, {%s}, {%s}}" % (
                tt.dim(), ", ".join(str(d) for d in tt.shape) or "0",
                ", ".join(c(v) for v in tt.detach().flatten().tolist()),
                ", ".join(c(v) for v in grad)))
        while len(items) < 3:
            items.append("{0, {0}, 0, {0}, {0}}")
        yield '    {"%s", {%s},\n     {%s}, {%s}, {%s}},' % (
            op, ",\n      ".join(items), ", ".join(str(d) for d in y.shape),
            ", ".join(c(v) for v in y.detach().flatten().tolist()),
            ", ".join(c(v) for v in torch.tensor(g, dtype=D).flatten().tolist()))


def table(decl, rows):
    print(decl)
    print("\n".join(rows))
    print("};\n")


def main():
    print("/* Generated by: /usr/bin/python3 tests/engine/torch_elementwise_cases.py > "
          "tests/engine/torch_elementwise_cases.h")
    print(" * (PyTorch %s). Do not edit: change the script and run it again. */" %
          torch.__version__)
    print("/* op, approximate (gelu), the op's numbers, x, g, PyTorch's y and dx. */")
    print("typedef struct {\n    const char *op, *approximate;\n    double p[2], x, g, y, dx;\n"
          "} ActivationCase;")
    table("static const ActivationCase activation_cases[] = {", activation_cases())
    print("/* clamp(x, min, max) with tensor bounds; has_min, has_max: given. */")
    print("typedef struct {\n    double x, min, max;\n    int has_min, has_max;\n"
          "    double g, y, dx, dmin, dmax;\n} ClampCase;")
    table("static const ClampCase clamp_cases[] = {", clamp_cases())
    print("/* where(condition != 0, a, b) */")
    print("typedef struct {\n    double cond, a, b, g, y, da, db;\n} WhereCase;")
    table("static const WhereCase where_cases[] = {", where_cases())
    print("/* An operand: its shape, whether it is given, its values and PyTorch's\n"
          " * gradient for it (where's condition: none, zeros). */")
    print("typedef struct {\n    int ndim;\n    int64_t shape[3];\n    int given;\n"
          "    double data[6], grad[6];\n} CaseOperand;")
    print("typedef struct {\n    const char *op;\n    CaseOperand in[3];\n"
          "    int64_t shape[2]; /* the result's, (2, 3) */\n    double y[6], g[6];\n"
          "} BroadcastCase;")
    table("static const BroadcastCase broadcast_cases[] = {", broadcast_cases())


main()
