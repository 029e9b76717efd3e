#!/usr/bin/python3
"""PyTorch's figures for tests/engine/test_optim.c (torch 1.13, float64, CPU).

    /usr/bin/python3 tests/engine/optim_reference.py            prints the C block
    /usr/bin/python3 tests/engine/optim_reference.py --update   rewrites it in test_optim.c
    /usr/bin/python3 tests/engine/optim_reference.py --kernels  checks where PyTorch's
                                                                kernels round (src/optim.c)

Each case runs an optimizer for STEPS steps on three parameters (a 0-d one, a
vector, a matrix) whose gradient at each step is c * p + d (elementwise, the
gradient of a fixed quadratic; computed the same way in C), except where SKIP
says a parameter has no gradient. After each step every parameter's values
are recorded. make test needs none of this: the output is pasted into
test_optim.c between its BEGIN/END lines.
"""
import inspect
import math
import os
import random
import sys

import torch
from torch.optim.optimizer import required

STEPS = 6
SHAPES = [(), (3,), (2, 3)]
NUMEL = 10
# SKIP[step][param]: no gradient for that parameter in that step (p.grad = None).
SKIP = [[1, 0, 0], [0, 0, 0], [0, 1, 0], [0, 0, 0], [0, 0, 1], [0, 0, 0]]
# The nonfinite cases make d[NONFINITE_INDEX] (flat) +inf, so that inf and
# nan travel through the update (torch.maximum keeps nan; fmax would not).
NONFINITE_INDEX = 5

rng = random.Random(20240613)
INIT = [round(rng.uniform(-2, 2), 3) for _ in range(NUMEL)]
C = [round(rng.uniform(0.5, 2), 3) for _ in range(NUMEL)]
D = [round(rng.uniform(-1, 1), 3) for _ in range(NUMEL)]

KINDS = {"SGD": torch.optim.SGD, "Adam": torch.optim.Adam, "AdamW": torch.optim.AdamW,
         "RMSprop": torch.optim.RMSprop, "Adagrad": torch.optim.Adagrad,
         "Adadelta": torch.optim.Adadelta}
ENUM = {"SGD": "AG_OPTIM_SGD", "Adam": "AG_OPTIM_ADAM", "AdamW": "AG_OPTIM_ADAMW",
        "RMSprop": "AG_OPTIM_RMSPROP", "Adagrad": "AG_OPTIM_ADAGRAD",
        "Adadelta": "AG_OPTIM_ADADELTA"}

# (name, kind, keyword arguments, nonfinite)
CASES = [
    ("sgd", "SGD", dict(lr=0.1), False),
    ("sgd momentum", "SGD", dict(lr=0.1, momentum=0.9), False),
    ("sgd dampening", "SGD", dict(lr=0.1, momentum=0.9, dampening=0.3), False),
    ("sgd nesterov", "SGD", dict(lr=0.1, momentum=0.9, nesterov=True), False),
    ("sgd weight_decay", "SGD", dict(lr=0.1, weight_decay=0.1), False),
    ("sgd maximize", "SGD", dict(lr=0.1, maximize=True), False),
    ("sgd all", "SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.01,
                            maximize=True), False),
    ("adam defaults", "Adam", dict(), False),
    ("adam", "Adam", dict(lr=0.05), False),
    ("adam weight_decay", "Adam", dict(lr=0.05, weight_decay=0.1), False),
    ("adam amsgrad", "Adam", dict(lr=0.05, amsgrad=True), False),
    ("adam maximize", "Adam", dict(lr=0.05, maximize=True), False),
    ("adam betas eps", "Adam", dict(lr=0.05, betas=(0.5, 0.6), eps=1e-3), False),
    ("adam all", "Adam", dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.2, amsgrad=True,
                              maximize=True), False),
    ("adam nonfinite", "Adam", dict(lr=0.05, amsgrad=True), True),
    ("adamw defaults", "AdamW", dict(), False),
    ("adamw", "AdamW", dict(lr=0.05), False),
    ("adamw weight_decay", "AdamW", dict(lr=0.05, weight_decay=0.5), False),
    ("adamw amsgrad maximize", "AdamW", dict(lr=0.05, amsgrad=True, maximize=True), False),
    ("rmsprop defaults", "RMSprop", dict(), False),
    ("rmsprop momentum", "RMSprop", dict(lr=0.01, momentum=0.9), False),
    ("rmsprop centered", "RMSprop", dict(centered=True), False),
    ("rmsprop weight_decay", "RMSprop", dict(weight_decay=0.7), False),
    # alpha well below 1: grad_avg ** 2 comparable to square_avg, so the
    # fused roundings show (with 0.99 they rarely reach the result)
    ("rmsprop centered alpha", "RMSprop", dict(lr=0.05, alpha=0.3, centered=True,
                                               weight_decay=0.9), False),
    ("rmsprop centered alpha momentum", "RMSprop", dict(lr=0.05, alpha=0.6, centered=True,
                                                        momentum=0.7, weight_decay=0.3), False),
    ("rmsprop maximize alpha eps", "RMSprop", dict(maximize=True, alpha=0.9, eps=1e-4), False),
    ("rmsprop all", "RMSprop", dict(lr=0.02, alpha=0.8, eps=1e-3, weight_decay=0.05,
                                    momentum=0.5, centered=True, maximize=True), False),
    ("rmsprop nonfinite", "RMSprop", dict(centered=True, momentum=0.5), True),
    ("adagrad defaults", "Adagrad", dict(), False),
    ("adagrad lr_decay", "Adagrad", dict(lr=0.1, lr_decay=0.5), False),
    ("adagrad initial_accumulator_value", "Adagrad",
     dict(lr=0.1, initial_accumulator_value=0.5), False),
    ("adagrad weight_decay", "Adagrad", dict(lr=0.1, weight_decay=0.1), False),
    ("adagrad maximize eps", "Adagrad", dict(lr=0.1, maximize=True, eps=1e-3), False),
    ("adagrad all", "Adagrad", dict(lr=0.1, lr_decay=0.2, weight_decay=0.3,
                                    initial_accumulator_value=0.1, eps=1e-6, maximize=True), False),
    ("adadelta defaults", "Adadelta", dict(), False),
    ("adadelta rho eps", "Adadelta", dict(lr=0.5, rho=0.5, eps=1e-3), False),
    ("adadelta weight_decay", "Adadelta", dict(weight_decay=0.2), False),
    ("adadelta all", "Adadelta", dict(lr=2.0, rho=0.95, eps=1e-4, weight_decay=0.1,
                                      maximize=True), False),
    ("adadelta nonfinite", "Adadelta", dict(), True),
]

# Bad configurations: (kind, keyword arguments); the message is PyTorch's.
ERRORS = [
    ("SGD", dict()),  # no lr
    ("SGD", dict(lr=-0.1)),
    ("SGD", dict(lr=0.1, momentum=-0.5)),
    ("SGD", dict(lr=0.1, weight_decay=-1.0)),
    ("SGD", dict(lr=0.1, nesterov=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)),
    ("Adam", dict(lr=-0.1)),
    ("Adam", dict(eps=-1e-8)),
    ("Adam", dict(betas=(1.0, 0.999))),
    ("Adam", dict(betas=(0.9, -0.5))),
    ("Adam", dict(weight_decay=-0.01)),
    ("Adam", dict(lr=float("nan"))),
    ("AdamW", dict(lr=-1e-5)),
    ("AdamW", dict(betas=(0.9, 1.5))),
    ("AdamW", dict(weight_decay=-100.0)),
    ("RMSprop", dict(lr=-2.0)),
    ("RMSprop", dict(eps=-1.0)),
    ("RMSprop", dict(momentum=-0.9)),
    ("RMSprop", dict(weight_decay=-0.25)),
    ("RMSprop", dict(alpha=-0.99)),
    ("Adagrad", dict(lr=-0.01)),
    ("Adagrad", dict(lr_decay=-1e-3)),
    ("Adagrad", dict(weight_decay=-1.0)),
    ("Adagrad", dict(initial_accumulator_value=-0.5)),
    ("Adagrad", dict(eps=-1e-10)),
    ("Adagrad", dict(lr=1e20, eps=-1e20)),
    ("Adadelta", dict(lr=-1.0)),
    ("Adadelta", dict(rho=1.5)),
    ("Adadelta", dict(rho=-0.1)),
    ("Adadelta", dict(eps=-1e-6)),
    ("Adadelta", dict(weight_decay=-0.5)),
]


def c_double(x):
    x = float(x)
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    return repr(x)


def c_config(group):
    """The C initializer of an AgOptimConfig holding a param_group's options."""
    fields = []
    for key in ("lr", "momentum", "dampening", "weight_decay", "eps", "alpha", "lr_decay",
                "initial_accumulator_value", "rho"):
        if key in group:
            fields.append(".%s = %s" % (key, c_double(group[key])))
    if "betas" in group:
        fields.append(".beta1 = %s, .beta2 = %s" % tuple(c_double(b) for b in group["betas"]))
    for key in ("nesterov", "centered", "maximize", "amsgrad"):
        if group.get(key):
            fields.append(".%s = true" % key)
    return "{" + ", ".join(fields) + "}"


def make_params():
    params, at = [], 0
    for shape in SHAPES:
        n = math.prod(shape)
        params.append(torch.tensor(INIT[at:at + n], dtype=torch.float64).reshape(shape)
                      .requires_grad_())
        at += n
    return params


def run(kind, kwargs, nonfinite):
    params = make_params()
    opt = KINDS[kind](params, foreach=False, **kwargs)  # the single-tensor path
    d = list(D)
    if nonfinite:
        d[NONFINITE_INDEX] = math.inf
    rows, at = [], [0, 1, 4]
    for step in range(STEPS):
        for j, p in enumerate(params):
            if SKIP[step][j]:
                p.grad = None
            else:
                n = p.numel()
                c = torch.tensor(C[at[j]:at[j] + n], dtype=torch.float64).reshape(p.shape)
                dj = torch.tensor(d[at[j]:at[j] + n], dtype=torch.float64).reshape(p.shape)
                p.grad = c * p.detach() + dj
        opt.step()
        rows.append([v for p in params for v in p.detach().reshape(-1).tolist()])
    return opt.param_groups[0], rows


def defaults(kind):
    sig = inspect.signature(KINDS[kind].__init__).parameters
    group = {}
    for key, prm in sig.items():
        if prm.default is inspect.Parameter.empty or key in ("foreach", "differentiable",
                                                             "capturable", "fused"):
            continue
        group[key] = math.nan if prm.default is required else prm.default
    return group


def c_block():
    out = ["/* BEGIN optim_reference.py output (torch %s) */" % torch.__version__]
    out.append("_Static_assert(OPT_STEPS == %d && OPT_NUMEL == %d && OPT_NONFINITE_INDEX == %d,"
               " \"test_optim.c agrees with optim_reference.py\");" % (STEPS, NUMEL, NONFINITE_INDEX))
    for name, values in (("INIT", INIT), ("C", C), ("D", D)):
        out.append("static const double %s[OPT_NUMEL] = {%s};" % (name, ", ".join(map(repr, values))))
    out.append("static const bool SKIP[OPT_STEPS][3] = {%s};" %
               ", ".join("{%s}" % ", ".join(map(str, r)) for r in SKIP))
    out.append("static const OptimCase CASES[] = {")
    for name, kind, kwargs, nonfinite in CASES:
        group, rows = run(kind, kwargs, nonfinite)
        out.append('    {"%s", %s, %s, %s, {' % (name, ENUM[kind], c_config(group),
                                                  "true" if nonfinite else "false"))
        for row in rows:
            out.append("        {%s}," % ", ".join(map(c_double, row)))
        out.append("    }},")
    out.append("};")
    out.append("static const OptimDefault DEFAULTS[] = {")
    for kind in KINDS:
        out.append("    {%s, %s}," % (ENUM[kind], c_config(defaults(kind))))
    out.append("};")
    out.append("static const OptimError ERRORS[] = {")
    for kind, kwargs in ERRORS:
        try:
            KINDS[kind](make_params(), **kwargs)
            sys.exit("no error from %s(%r)" % (kind, kwargs))
        except ValueError as e:
            message = str(e)
        group = dict(defaults(kind), **kwargs)
        out.append('    {%s, %s, "%s"},' % (ENUM[kind], c_config(group), message))
    out.append("};")
    out.append("/* END optim_reference.py output */")
    return "\n".join(out) + "\n"


def check_kernels():
    """Where PyTorch's CPU kernels round, against libm's fma, element by element."""
    import ctypes
    libm = ctypes.CDLL("libm.so.6")
    libm.fma.restype = ctypes.c_double
    libm.fma.argtypes = [ctypes.c_double] * 3
    fma = libm.fma
    torch.manual_seed(0)
    r = random.Random(0)
    claims = {
        "a.add(b, alpha=s) == fma(s, b, a)":
            lambda a, b, c, s: (a.add(b, alpha=s), lambda x, y, z: fma(s, y, x)),
        "a.add_(b, alpha=s) == fma(s, b, a)":
            lambda a, b, c, s: (a.clone().add_(b, alpha=s), lambda x, y, z: fma(s, y, x)),
        "a.addcmul(b, c, value=s) == fma(s * b, c, a)":
            lambda a, b, c, s: (a.addcmul(b, c, value=s), lambda x, y, z: fma(s * y, z, x)),
        "a.addcmul_(b, b, value=s) == fma(s * b, b, a)":
            lambda a, b, c, s: (a.clone().addcmul_(b, b, value=s), lambda x, y, z: fma(s * y, y, x)),
        "a.addcdiv(b, c, value=s) == a + (s * b) / c":
            lambda a, b, c, s: (a.addcdiv(b, c, value=s), lambda x, y, z: x + (s * y) / z),
        "a.addcdiv_(b, c) == a + b / c":
            lambda a, b, c, s: (a.clone().addcdiv_(b, c), lambda x, y, z: x + y / z),
        "a.mul_(s) == a * s":
            lambda a, b, c, s: (a.clone().mul_(s), lambda x, y, z: x * s),
        "c.sqrt() / s == sqrt(c) / s":
            lambda a, b, c, s: (c.sqrt() / s, lambda x, y, z: math.sqrt(z) / s),
        "c.sqrt().add_(|s|) == sqrt(c) + |s|":
            lambda a, b, c, s: (c.sqrt().add_(abs(s)), lambda x, y, z: math.sqrt(z) + abs(s)),
        "a.add(b, alpha=s) != a + s * b (PyTorch fuses: not plain)":
            lambda a, b, c, s: (a.add(b, alpha=s), lambda x, y, z: x + s * y),
    }
    failed = False
    for claim, make in claims.items():
        agree = disagree = 0
        for _ in range(300):
            n = r.choice([1, 2, 3, 5, 8, 9, 16, 17, 33, 100])
            a, b = (torch.randn(n, dtype=torch.float64) * torch.exp(3 * torch.randn(n, dtype=torch.float64))
                    for _ in range(2))
            c = torch.rand(n, dtype=torch.float64) + 1e-3
            if n == 1 and r.random() < 0.5:
                a, b, c = a[0].clone(), b[0].clone(), c[0].clone()  # 0-d tensors too
            s = r.gauss(0, 1) * 10 ** r.uniform(-3, 3)
            got, want = make(a, b, c, s)
            got = got.reshape(-1).tolist()
            xs, ys, zs = (t.reshape(-1).tolist() for t in (a, b, c))
            if all(got[i] == want(xs[i], ys[i], zs[i]) for i in range(n)):
                agree += 1
            else:
                disagree += 1
        expect_all = "!=" not in claim
        ok = disagree == 0 if expect_all else disagree > 0
        failed |= not ok
        print("%-58s %s (%d of 300 tensors agree)" % (claim, "ok" if ok else "WRONG", agree))
    return 1 if failed else 0


if __name__ == "__main__":
    if "--kernels" in sys.argv:
        sys.exit(check_kernels())
    block = c_block()
    if "--update" in sys.argv:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_optim.c")
        text = open(path).read()
        begin = text.index("/* BEGIN optim_reference.py output")
        end = text.index("/* END optim_reference.py output */\n") + len("/* END optim_reference.py output */\n")
        open(path, "w").write(text[:begin] + block + text[end:])
        print("updated %s" % path)
    else:
        sys.stdout.write(block)
