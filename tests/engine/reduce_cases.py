"""Writes tests/engine/reduce_cases.h: PyTorch 1.13's values and gradients
of the reductions (sum, mean, var, std, norm, logsumexp, max, min, argmax,
argmin) and the shape ops (flatten, squeeze, unsqueeze, permute, t, cat)
at fixed inputs, for test_reduce.c.

    /usr/bin/python3 tests/engine/reduce_cases.py > tests/engine/reduce_cases.h

Each case is one call with its arguments written as PyTorch takes them,
its input(s) (random, with ties, zeros, inf and nan where they matter),
the output, an incoming gradient of the output's shape (random) and the
gradients PyTorch's backward gives the inputs. A gradient PyTorch leaves
undefined (None: norm with p = 0, whose value is flat) is written as
zeros, ag's documented choice. An input of 1 or more dims whose full
var or std divides by n - 1 = 0 is left out: PyTorch 1.13's backward
raises an error there (VarBackward0 returned an invalid gradient); ag's
gradient there is tested by hand in test_reduce.c. Values of p that a
float cannot hold (1/3, 1.0412..., 2.2) show that PyTorch's norm kernel
rounds p to float in its forward, not in its backward.
"""
import math

import torch

from torch_cases import c  # a double as a C expression that reads back exactly

D = torch.float64
INF, NAN = float("inf"), float("nan")
MAX_DIMS = 8


def arr(values):
    return "{" + ", ".join(c(float(v)) for v in values) + "}" if values else "{0}"


def shape_list(shape):
    s = list(shape)
    return "{" + ", ".join(str(d) for d in s) + "}" if s else "{0}"


gen = torch.Generator().manual_seed(20240601)


def randn(*shape):
    return torch.randn(tuple(shape), generator=gen, dtype=D)


def ties(*shape):
    """Small integers over 4: many ties, exact in every operation."""
    return torch.randint(-3, 4, tuple(shape), generator=gen).to(D) / 4


CASES = []


def case(op, xs, call, dims=None, keepdim=False, unbiased=True, p=2.0, dim=None, tol=16):
    """Runs call(*inputs) in PyTorch, its backward with a random gradient,
    and records everything."""
    inputs = [x.clone().requires_grad_(True) for x in xs]
    out = call(*inputs)
    if op in ("argmax", "argmin"):
        out = out.to(D)
        g = torch.zeros_like(out)
        grads = [None for _ in inputs]
    else:
        g = randn(*out.shape)
        out.backward(g)
        grads = [x.grad for x in inputs]
    CASES.append(dict(op=op, xs=[x.detach() for x in xs], out=out.detach(), g=g,
                      grads=[gr if gr is not None else torch.zeros_like(x)
                             for gr, x in zip(grads, xs)],
                      dims=dims, keepdim=keepdim, unbiased=unbiased, p=p, dim=dim, tol=tol))


def dims_options(ndim):
    """None, each dim (both signs), some tuples, and ()."""
    opts = [None] if ndim > 0 else [None, (0,), (-1,)]
    for d in range(ndim):
        opts.append((d,))
        opts.append((d - ndim,))
    if ndim >= 2:
        opts += [(0, ndim - 1), (-1, 0), tuple(range(ndim)), ()]
    if ndim >= 3:
        opts += [(0, 2), (1, 2), (2, 0, 1)]
    return opts


SHAPES = [(), (5,), (3, 4), (2, 3, 4), (2, 1, 3, 2)]


def torch_dims(dims):
    return None if dims is None else (dims[0] if len(dims) == 1 else dims)


def sums():
    for shape in SHAPES:
        for dims in dims_options(len(shape)):
            for keepdim in (False, True):
                x = randn(*shape)
                td = torch_dims(dims)
                case("sum", [x], lambda a: torch.sum(a, dim=td, keepdim=keepdim), dims, keepdim)
                case("mean", [x], lambda a: torch.mean(a, dim=td, keepdim=keepdim), dims, keepdim)


def variances():
    for shape in SHAPES + [(3, 1), (4, 2)]:
        for dims in dims_options(len(shape)):
            if dims == ():
                continue  # PyTorch 1.13's var_backward divides by 0 there (its bug)
            for keepdim in (False, True):
                for unbiased in (True, False):
                    x = randn(*shape)
                    if shape == (4, 2):
                        x[1] = 0.5  # a row of equal values: std 0, its gradient masked to 0
                        x[:, 1] = x[:, 1] * 1e-3 + 100
                    n = x.numel() if dims is None or not shape else math.prod(shape[d] for d in dims)
                    if unbiased and n <= 1 and dims is None and len(shape) >= 1:
                        continue  # PyTorch's backward raises there (see the docstring)
                    td = torch_dims(dims)
                    # PyTorch's bits: Welford's update in memory order to several
                    # outputs (it loses digits on the column near 100, std 6e-4,
                    # and so does ag), two passes summed in order to one.
                    tol = 0
                    for op, fn in (("var", torch.var), ("std", torch.std)):
                        case(op, [x], lambda a: fn(a, td, unbiased, keepdim), dims, keepdim,
                             unbiased, tol=tol)


def norms():
    ps = [2.0, 1.0, 3.0, INF, -INF, 0.5, 1.5, 0.0, -1.0, 4.0, 1 / 3, 1.0412260567662148, 2.2]
    for p in ps:
        for shape in [(5,), (3, 4), (2, 3, 4)]:
            if len(shape) == 3 and p not in (1.0, 2.0, 3.0, INF):
                continue
            for dims in dims_options(len(shape)):
                if dims == ():
                    continue
                for keepdim in (False, True):
                    x = randn(*shape)
                    if shape == (3, 4):
                        x[1] = 0.0           # a zero row: norm 0
                        x[2, 1] = 0.0        # a zero among others
                        x[0, 2] = -x[0, 0]   # tied |x|
                    td = torch_dims(dims)
                    case("norm", [x], lambda a: torch.norm(a, p, td, keepdim), dims, keepdim, p=p)
    # special values
    for p in ps:
        for v in ([INF, 2.0, -3.0], [NAN, 2.0, 0.0], [0.0, 0.0, 0.0], [1e200, 1e200, 1.0],
                  [1e-200, 1e-200, 0.0]):
            case("norm", [torch.tensor(v, dtype=D)], lambda a: torch.norm(a, p), p=p)


def logsumexps():
    for shape in [(5,), (3, 4), (2, 3, 4), (2, 1, 3, 2)]:
        for dims in dims_options(len(shape)):
            if dims is None or dims == ():
                continue  # logsumexp needs its dim in PyTorch 1.13
            for keepdim in (False, True):
                x = randn(*shape) * 3
                td = torch_dims(dims)
                case("logsumexp", [x], lambda a: torch.logsumexp(a, td, keepdim), dims, keepdim,
                     tol=0)
    for v in ([1000.0, 1000.0, 999.0], [-INF, -INF], [INF, 1.0], [-INF, 1.0], [NAN, 1.0],
              [INF, INF], [-1000.0, -1001.0]):
        case("logsumexp", [torch.tensor(v, dtype=D)], lambda a: torch.logsumexp(a, 0), (0,))



def extremes():
    for shape in [(), (7,), (3, 4), (2, 3, 4)]:
        for kind in ("ties", "randn"):
            x = ties(*shape) if kind == "ties" else randn(*shape)
            case("max", [x], lambda a: torch.max(a))
            case("min", [x], lambda a: torch.min(a))
            case("argmax", [x], lambda a: torch.argmax(a))
            case("argmin", [x], lambda a: torch.argmin(a))
            case("argmax", [x], lambda a: torch.argmax(a, None, True), None, True)
            for d in range(-len(shape), max(len(shape), 1)):
                if len(shape) == 0 and d not in (0, -1):
                    continue
                for keepdim in (False, True):
                    case("max", [x], lambda a: torch.max(a, d, keepdim).values, dim=d,
                         keepdim=keepdim)
                    case("min", [x], lambda a: torch.min(a, d, keepdim).values, dim=d,
                         keepdim=keepdim)
                    case("argmax", [x], lambda a: torch.argmax(a, d, keepdim), dim=d,
                         keepdim=keepdim)
                    case("argmin", [x], lambda a: torch.argmin(a, d, keepdim), dim=d,
                         keepdim=keepdim)
    for v in ([1.0, NAN, 3.0, NAN], [NAN, NAN], [INF, 1.0, INF], [-INF, -INF, 0.0],
              [2.0, 2.0, 2.0], [-0.0, 0.0]):
        x = torch.tensor(v, dtype=D)
        for op, fn in (("max", torch.max), ("min", torch.min), ("argmax", torch.argmax),
                       ("argmin", torch.argmin)):
            case(op, [x], lambda a: fn(a))
        x2 = x.reshape(1, -1)
        case("max", [x2], lambda a: torch.max(a, 1).values, dim=1)
        case("min", [x2], lambda a: torch.min(a, 1).values, dim=1)
        case("argmax", [x2], lambda a: torch.argmax(a, 1), dim=1)
        case("argmin", [x2], lambda a: torch.argmin(a, 1), dim=1)


def shapes():
    for shape in [(), (4,), (2, 3), (2, 1, 3), (1, 2, 1, 3)]:
        x = randn(*shape)
        nd = max(len(shape), 1)
        for start in range(-nd, nd):
            for end in range(-nd, nd):
                if (start % nd) <= (end % nd):
                    case("flatten", [x], lambda a: torch.flatten(a, start, end), dims=(start, end))
        case("squeeze", [x], lambda a: torch.squeeze(a))
        for d in range(-nd, nd):
            case("squeeze", [x], lambda a: torch.squeeze(a, d), dim=d)
        for d in range(-nd - 1, nd + 1) if len(shape) > 0 else (0, -1):
            case("unsqueeze", [x], lambda a: torch.unsqueeze(a, d), dim=d)
        if len(shape) <= 2:
            case("t", [x], lambda a: torch.t(a))
    for shape, perm in [((2, 3), (1, 0)), ((2, 3), (-1, -2)), ((2, 3, 4), (2, 0, 1)),
                        ((2, 3, 4), (1, -1, 0)), ((2, 3, 4), (0, 1, 2)), ((2, 1, 3, 2), (3, 1, 0, 2)),
                        ((4,), (0,))]:
        x = randn(*shape)
        case("permute", [x], lambda a: a.permute(*perm), dims=perm)
    for shapes_, d in [([(2, 3), (1, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 2)], 1),
                       ([(2, 3), (2, 1)], -1), ([(2, 3, 4), (2, 2, 4)], 1), ([(2, 3, 4), (2, 3, 1)], 2),
                       ([(5,), (0,), (2,)], 0), ([(2, 3), (0,), (1, 3)], 0), ([(0,), (2, 3)], -1),
                       ([(2, 0), (2, 3)], 1), ([(3,)], 0)]:
        xs = [randn(*s) for s in shapes_]
        case("cat", xs, lambda *a: torch.cat(a, d), dim=d)


sums()
variances()
norms()
logsumexps()
extremes()
shapes()
# Last, so that the random gradients above stay as they were: logsumexp
# with PyTorch's bits, its exp and log SLEEF's (whole-tensor kernels);
# libm's exp was 6 ulps off here (make difftest).
case("logsumexp", [torch.tensor([[-2.428456567379201, -2.812991965344072, -2.0,
                                  -0.11017910776280311]], dtype=D)],
     lambda a: torch.logsumexp(a, 1), (1,), tol=0)

print("/* Generated by: /usr/bin/python3 tests/engine/reduce_cases.py > tests/engine/reduce_cases.h")
print(" * (PyTorch %s). Do not edit: change the script and run it again. */" % torch.__version__)
print("typedef struct {")
print("    int ndim;")
print("    int64_t shape[%d];" % MAX_DIMS)
print("    const double *data, *grad; /* the input and PyTorch's gradient for it */")
print("} ReduceInput;")
print("typedef struct {")
print("    const char *op;")
print("    int num_inputs;")
print("    ReduceInput in[3];")
print("    int ndims;             /* dims given (-1: None) */")
print("    int64_t dims[%d];      /* the dims (flatten: start_dim, end_dim; permute: the order) */" % MAX_DIMS)
print("    bool has_dim;          /* max, min, argmax, argmin, squeeze, unsqueeze, cat: dim given */")
print("    int64_t dim;")
print("    bool keepdim, unbiased;")
print("    double p;")
print("    int out_ndim;")
print("    int64_t out_shape[%d];" % MAX_DIMS)
print("    const double *out, *g; /* PyTorch's output, and the gradient sent back through it */")
print("    double tol;            /* ulps of max(1, |value|) ag may differ by (summation order) */")
print("} ReduceCase;")
for i, k in enumerate(CASES):
    for j, x in enumerate(k["xs"]):
        print("static const double case%d_x%d[] = %s;" % (i, j, arr(x.flatten().tolist())))
        print("static const double case%d_dx%d[] = %s;" % (i, j, arr(k["grads"][j].flatten().tolist())))
    print("static const double case%d_out[] = %s;" % (i, arr(k["out"].flatten().tolist())))
    print("static const double case%d_g[] = %s;" % (i, arr(k["g"].flatten().tolist())))
print("static const ReduceCase reduce_cases[] = {")
for i, k in enumerate(CASES):
    ins = ", ".join("{%d, %s, case%d_x%d, case%d_dx%d}" % (x.dim(), shape_list(x.shape), i, j, i, j)
                    for j, x in enumerate(k["xs"]))
    dims = k["dims"]
    print('    {"%s", %d, {%s}, %d, %s, %s, %d, %s, %s, %s, %d, %s, case%d_out, case%d_g, %g},' % (
        k["op"], len(k["xs"]), ins, -1 if dims is None else len(dims),
        shape_list(dims or ()), "true" if k["dim"] is not None else "false",
        k["dim"] if k["dim"] is not None else 0, "true" if k["keepdim"] else "false",
        "true" if k["unbiased"] else "false", c(k["p"]), k["out"].dim(), shape_list(k["out"].shape),
        i, i, k["tol"]))
print("};")
