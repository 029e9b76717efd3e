"""Writes tests/engine/loss_cases.h: PyTorch 1.13's values and gradients of
every loss ag has, with each reduction, at fixed inputs (both sides of each
kink, on the kinks PyTorch defines a gradient at, broadcasting, weights,
extreme logits), for test_losses.c.

    /usr/bin/python3 tests/engine/loss_cases.py > tests/engine/loss_cases.h

Each case calls torch.nn.functional's loss in float64, then backward with
a gradient g (one number for 'mean' and 'sum', a tensor for 'none'), and
records the output and each input's .grad (None: no gradient). The
arguments are written in ag's signature order (the op table's parameter
letters), so that the test calls each loss the way the shell does.
"""
import inspect
import warnings

import torch
import torch.nn.functional as F

from torch_cases import c  # a double as a C expression that reads back exactly

D = torch.float64
INF, NAN = float("inf"), float("nan")

# ag's signature of each loss, as the op table lists it: (name, letter).
SIGNATURES = {
    "mse_loss": "input:T target:T reduction:s",
    "l1_loss": "input:T target:T reduction:s",
    "smooth_l1_loss": "input:T target:T reduction:s beta:n",
    "huber_loss": "input:T target:T reduction:s delta:n",
    "binary_cross_entropy": "input:T target:T weight:t reduction:s",
    "binary_cross_entropy_with_logits": "input:T target:T weight:t reduction:s pos_weight:t",
    "nll_loss": "input:T target:T reduction:s",
    "cross_entropy": "input:T target:T reduction:s",
    "kl_div": "input:T target:T reduction:s log_target:b",
    "hinge_embedding_loss": "input:T target:T margin:n reduction:s",
    "cosine_embedding_loss": "input1:T input2:T target:T margin:n reduction:s",
    "triplet_margin_loss": "anchor:T positive:T negative:T margin:n p:n eps:n swap:b reduction:s",
}

# Targets of these are class indices (long in PyTorch, floats in ag).
CLASS_LOSSES = {"nll_loss", "cross_entropy"}
# Tensor arguments that never require grad (indices, weights).
CONSTANT_ARGS = {"weight", "pos_weight"}


def doubles(values):
    """A C array of the values ({0} for none: C has no empty initializer)."""
    return "(const double[]){%s}" % (", ".join(c(v) for v in values) or "0")


def shape_of(t):
    return list(t.shape)


def case(loss, reductions, grad_args, **args):
    """Yields one C initializer per reduction. args: the loss's arguments
    by name (lists become float64 tensors); grad_args: the names of the
    tensors that require grad."""
    params = [p.split(":") for p in SIGNATURES[loss].split()]
    defaults = {k: v.default for k, v in inspect.signature(getattr(F, loss)).parameters.items()}
    for reduction in reductions:
        tensors, numbers, flags, kwargs = [], [], [], {}
        for name, letter in params:
            if name == "reduction":
                kwargs[name] = reduction
                continue
            value = args.get(name, defaults.get(name))
            if letter in "Tt":
                if value is None:
                    tensors.append(None)
                    kwargs[name] = None
                    continue
                tt = (value.to(D) if isinstance(value, torch.Tensor)
                      else torch.tensor(value, dtype=D)).detach().requires_grad_(name in grad_args)
                tensors.append((name, tt))
                if loss in CLASS_LOSSES and name == "target":
                    kwargs[name] = tt.detach().long()
                else:
                    kwargs[name] = tt
            elif letter == "n":
                numbers.append(float(value))
                kwargs[name] = value
            elif letter == "b":
                flags.append(bool(value))
                kwargs[name] = value
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # kl_div's 'mean', mse's broadcasting
            y = getattr(F, loss)(**kwargs)
        g = (torch.linspace(-1.5, 2.0, y.numel(), dtype=D).reshape(y.shape) if reduction == "none"
             else torch.tensor(1.5, dtype=D))
        y.backward(g)
        yield case_text(loss, reduction, tensors, numbers, flags, y, g)


def case_text(loss, reduction, tensors, numbers, flags, y, g):
    fields = ['"%s"' % loss, '"%s"' % reduction, str(len(tensors))]
    arrays = []
    for item in tensors:
        if item is None:
            arrays.append("{0, {0}, NULL, false, NULL}")
            continue
        name, tt = item
        grad = tt.grad.flatten().tolist() if tt.grad is not None else None
        arrays.append("{%d, {%s}, %s, %s, %s}" % (
            tt.dim(), ", ".join(str(d) for d in shape_of(tt)) or "0",
            doubles(tt.detach().flatten().tolist()), "true" if tt.requires_grad else "false",
            doubles(grad) if grad is not None else "NULL"))
    fields.append("{%s}" % ", ".join(arrays))
    fields.append("{%s}" % ", ".join(c(v) for v in numbers) if numbers else "{0}")
    fields.append("{%s}" % ", ".join("true" if f else "false" for f in flags) if flags else "{0}")
    fields.append("%d, {%s}" % (y.dim(), ", ".join(str(d) for d in y.shape) or "0"))
    fields.append(doubles(y.detach().flatten().tolist()))
    fields.append(doubles(g.flatten().tolist()))
    return "    {%s}," % ", ".join(fields)


MSN = ["mean", "sum", "none"]


def cases():
    # mse: both sides of 0, a zero difference, and a target that broadcasts.
    x23 = [[0.5, -1.25, 2.0], [3.0, 0.0, -0.75]]
    t23 = [[1.0, -1.25, -0.5], [2.5, 0.25, 1.0]]
    yield from case("mse_loss", MSN, {"input", "target"}, input=x23, target=t23)
    yield from case("mse_loss", MSN, {"input", "target"}, input=x23, target=[0.5, -2.0, 1.0])
    yield from case("mse_loss", MSN, {"input"}, input=[[1.0], [-2.0]], target=[0.5, 3.0, -1.0])
    # l1: at 0 the gradient is 0 (sgn), the target's -0.
    yield from case("l1_loss", MSN, {"input", "target"}, input=x23, target=t23)
    yield from case("l1_loss", MSN, {"input", "target"}, input=x23, target=[0.5, -2.0, 1.0])
    # smooth_l1 and huber: |d| below, at and above the kink, both signs.
    d = [-2.0, -1.0, -0.3, 0.0, 0.4, 1.0, 1.7, -0.5]
    base = [0.25, -1.0, 0.5, 1.5, -0.75, 2.0, 0.125, 0.0]
    xs = [b + v for b, v in zip(base, d)]
    yield from case("smooth_l1_loss", MSN, {"input", "target"}, input=xs, target=base)
    yield from case("smooth_l1_loss", MSN, {"input", "target"}, input=xs, target=base, beta=0.5)
    yield from case("smooth_l1_loss", MSN, {"input", "target"}, input=xs, target=base, beta=0.0)
    yield from case("smooth_l1_loss", MSN, {"input", "target"}, input=[[1.0, 2.0], [3.0, -4.0]],
                    target=[2.5, -1.0], beta=2.0)
    yield from case("huber_loss", MSN, {"input", "target"}, input=xs, target=base)
    yield from case("huber_loss", MSN, {"input", "target"}, input=xs, target=base, delta=0.5)
    yield from case("huber_loss", MSN, {"input", "target"}, input=[[1.0, 2.0], [3.0, -4.0]],
                    target=[2.5, -1.0], delta=2.0)
    # binary_cross_entropy: 0 and 1 (log clamped at -100), a weight that
    # broadcasts, a target that is differentiated.
    p = [[0.2, 0.7, 0.5], [0.999, 0.01, 0.35]]
    q = [[0.0, 1.0, 0.5], [1.0, 0.0, 0.8]]
    yield from case("binary_cross_entropy", MSN, {"input", "target"}, input=p, target=q)
    yield from case("binary_cross_entropy", MSN, {"input", "target"}, input=p, target=q,
                    weight=[0.5, 2.0, 1.5])
    yield from case("binary_cross_entropy", MSN, {"input", "target"},
                    input=[0.0, 1.0, 1.0, 0.0, 1e-17], target=[1.0, 0.0, 1.0, 0.0, 0.0])
    # binary_cross_entropy_with_logits: moderate and extreme logits, weight,
    # pos_weight (broadcasting), both.
    z = [[0.3, -2.0, 40.0, -40.0], [800.0, -800.0, 0.0, 1.5]]
    y = [[0.2, 0.7, 1.0, 0.0], [0.0, 1.0, 0.5, 0.9]]
    yield from case("binary_cross_entropy_with_logits", MSN, {"input", "target"}, input=z, target=y)
    yield from case("binary_cross_entropy_with_logits", MSN, {"input", "target"}, input=z,
                    target=y, weight=[[1.0], [0.5]])
    yield from case("binary_cross_entropy_with_logits", MSN, {"input", "target"}, input=z,
                    target=y, pos_weight=[2.0, 3.0, 0.5, 2.0])
    yield from case("binary_cross_entropy_with_logits", MSN, {"input", "target"}, input=z,
                    target=y, weight=[0.5, 1.0, 2.0, 1.0], pos_weight=[[3.0], [0.25]])
    # nll_loss and cross_entropy: (N, C), (C,) with (), (N, C, d).
    lp = [[-1.2, -0.4, -2.3], [-0.1, -3.0, -2.5], [-0.7, -0.9, -1.6], [-2.0, -0.2, -4.0]]
    for loss in ["nll_loss", "cross_entropy"]:
        yield from case(loss, MSN, {"input"}, input=lp, target=[0, 2, 1, 1])
        yield from case(loss, MSN, {"input"}, input=[0.5, -1.0, 2.0], target=2)
        yield from case(loss, MSN, {"input"}, input=[[[0.5, -1.0], [2.0, 0.0], [1.0, 3.0]],
                                                     [[-0.5, 1.5], [0.25, -2.0], [0.0, 0.0]]],
                        target=[[2, 0], [1, 1]])
    yield from case("cross_entropy", MSN, {"input"}, input=[[1e16, 1e16, 1e16], [1000.0, 0.0, -1000.0]],
                    target=[0, 2])
    # kl_div: log-probabilities against probabilities (a 0 among them: its
    # target gradient is nan, as PyTorch's) or log-probabilities.
    lq = [[-1.2, -0.4, -2.3], [-0.1, -3.0, -2.5]]
    pr = [[0.3, 0.5, 0.2], [0.6, 0.1, 0.3]]
    KL = MSN + ["batchmean"]
    yield from case("kl_div", KL, {"input", "target"}, input=lq, target=pr)
    yield from case("kl_div", KL, {"input", "target"}, input=lq, target=[[-1.0, -0.5, -2.0],
                                                                         [-0.3, -4.0, -1.5]],
                    log_target=True)
    yield from case("kl_div", KL, {"input", "target"}, input=lq, target=[[0.0, 0.5, 0.5],
                                                                         [0.6, 0.1, 0.3]])
    yield from case("kl_div", KL, {"input"}, input=lq, target=[0.25, 0.25, 0.5])
    # hinge_embedding_loss: targets 1, -1 and neither; x below, at and above
    # the margin.
    hx = [0.5, 1.0, 2.0, -1.0, 0.3, 1.0, 0.25, 3.0]
    ht = [1.0, -1.0, -1.0, -1.0, 0.0, 1.0, -1.0, 0.5]
    yield from case("hinge_embedding_loss", MSN, {"input"}, input=hx, target=ht)
    yield from case("hinge_embedding_loss", MSN, {"input"}, input=hx, target=ht, margin=0.25)
    yield from case("hinge_embedding_loss", MSN, {"input"}, input=[[0.5], [1.5]],
                    target=[1.0, -1.0, -1.0], margin=2.0)
    # cosine_embedding_loss: targets 1, -1, 0; cos on both sides of the margin.
    a = [[1.0, 0.0, 2.0], [0.5, -1.0, 1.0], [2.0, 1.0, -1.0], [0.3, 0.3, 0.3]]
    b = [[0.5, 1.0, 1.0], [-1.0, 2.0, 0.5], [1.5, 0.5, -0.5], [1.0, -2.0, 0.1]]
    yield from case("cosine_embedding_loss", MSN, {"input1", "input2"}, input1=a, input2=b,
                    target=[1.0, -1.0, -1.0, 0.0])
    yield from case("cosine_embedding_loss", MSN, {"input1", "input2"}, input1=a, input2=b,
                    target=[-1.0, -1.0, 1.0, -1.0], margin=0.2)
    yield from case("cosine_embedding_loss", MSN, {"input1", "input2"}, input1=[1.0, 0.0],
                    input2=[1.0, 2.0], target=1.0)
    yield from case("cosine_embedding_loss", MSN, {"input1", "input2"}, input1=[[1.0, 0.0],
                                                                                [0.0, 1.0]],
                    input2=[[1.0, 2.0]], target=[-1.0, 1.0])
    # Broadcast along the rows (dim 1): p over the broadcast rows, each
    # magnitude over its input's own (found by make difftest).
    yield from case("cosine_embedding_loss", MSN, {"input1", "input2"}, input1=[[0.5], [2.0]],
                    input2=[[1.0, -1.0, 0.5]], target=[1.0, -1.0])
    yield from case("cosine_embedding_loss", MSN, {"input1", "input2"}, input1=[1.5, -0.5],
                    input2=[2.0], target=-1.0, margin=-0.5)
    # triplet_margin_loss: each p, swap, rows on both sides of the margin.
    an = [[1.0, 0.0, 0.5], [0.0, 2.0, -1.0], [0.5, 0.5, 0.5]]
    po = [[1.0, 2.0, 0.0], [0.5, 1.5, -1.0], [2.0, -1.0, 0.0]]
    ne = [[3.0, 1.0, 0.5], [0.0, 2.5, -1.5], [0.25, 0.5, 1.0]]
    every = {"anchor", "positive", "negative"}
    yield from case("triplet_margin_loss", MSN, every, anchor=an, positive=po, negative=ne)
    for p in [1.0, 1.5, 3.0, 0.5, INF]:
        yield from case("triplet_margin_loss", MSN, every, anchor=an, positive=po, negative=ne, p=p)
    yield from case("triplet_margin_loss", MSN, every, anchor=an, positive=po, negative=ne,
                    swap=True, margin=0.5)
    yield from case("triplet_margin_loss", MSN, every, anchor=[1.0, 0.0], positive=[1.0, 2.0],
                    negative=[3.0, 1.0], eps=0.0)
    yield from case("triplet_margin_loss", MSN, every, anchor=[[1.0, 0.0, 0.5]], positive=po,
                    negative=[[0.5, 1.0, 1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 2.0]], margin=2.0)
    # Broadcast along the rows: each distance over its pair's broadcast only
    # (found by make difftest).
    yield from case("triplet_margin_loss", MSN, every, anchor=[[0.0]], positive=[[0.0, 0.5, 1.0]],
                    negative=[[0.25]])
    for p in [2.0, 1.0, 3.0]:
        yield from case("triplet_margin_loss", MSN, every, anchor=[[0.0], [1.0]], positive=[[0.5]],
                        negative=[[-1.0, 2.0], [0.5, -0.5]], swap=True, p=p)
    # A distance near 66015 one ulp off is the loss, 1.5, 65536 ulps off:
    # each distance PyTorch's in-order sum of fused squares (make difftest).
    yield from case("triplet_margin_loss", MSN, every, anchor=[[1.0, -66015.39466749829]],
                    positive=[[0.5]], negative=[[0.0]])
    yield from case("triplet_margin_loss", MSN, every, anchor=[[0.3, -7.1, 2.2, 1e3, 0.1]],
                    positive=[[0.5, 0.25, -3.0, 999.5, 1.0]], negative=[[0.0, 1.1, 2.0, 998.0, 0.7]])
    # 0-d operands: one row of one value, a 0-d loss (make difftest).
    yield from case("triplet_margin_loss", MSN, every, anchor=0.0, positive=0.0, negative=0.0)
    yield from case("triplet_margin_loss", MSN, every, anchor=3.0, positive=1.0, negative=-2.5,
                    margin=4.0)
    # inf, nan and signed zeros, as PyTorch's formulas give them.
    sx = [0.0, -0.0, 1.0, INF, -INF, NAN, 2.0]
    st = [0.0, 0.0, INF, INF, 1.0, 0.0, NAN]
    for loss in ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"]:
        yield from case(loss, MSN, {"input", "target"}, input=sx, target=st)
    yield from case("binary_cross_entropy_with_logits", MSN, {"input", "target"}, input=sx,
                    target=[0.5] * 7)
    for log_target in [False, True]:
        yield from case("kl_div", MSN, {"input", "target"}, input=sx,
                        target=[0.5, 0.0, -1.0, INF, 1.0, NAN, 0.2], log_target=log_target)
    yield from case("hinge_embedding_loss", MSN, {"input"}, input=sx,
                    target=[1.0, -1.0, -1.0, -1.0, -1.0, -1.0, 1.0])
    # No elements: 'mean' is nan, 'sum' 0, 'none' empty; rows of no values.
    e2, e03 = torch.zeros(2, 0), torch.zeros(0, 3)
    for loss in ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                 "binary_cross_entropy_with_logits", "kl_div", "hinge_embedding_loss"]:
        yield from case(loss, KL if loss == "kl_div" else MSN, {"input", "target"}
                        - ({"target"} if loss == "hinge_embedding_loss" else set()),
                        input=e2, target=e2)
    for loss in ["nll_loss", "cross_entropy"]:
        yield from case(loss, MSN, {"input"}, input=e03, target=torch.zeros(0))
    yield from case("cosine_embedding_loss", MSN, {"input1", "input2"},
                    input1=e03, input2=e03, target=torch.zeros(0))
    yield from case("cosine_embedding_loss", MSN, {"input1", "input2"}, input1=e2, input2=e2,
                    target=[1.0, -1.0])
    yield from case("triplet_margin_loss", MSN, every, anchor=e03,
                    positive=e03, negative=e03)
    yield from case("triplet_margin_loss", MSN, every, anchor=e2, positive=e2, negative=e2)


def exact_cases():
    """Cases whose values and gradients must have PyTorch's bits (found by
    make difftest)."""
    # kl_div, a composite in PyTorch 1.13: the target's gradient sums
    # xlogy's two parts first, then the product's (6 ulps off before).
    yield from case("kl_div", ["mean"], {"target"}, input=[[[-0.1]]], target=[[[0.31]]])
    yield from case("kl_div", MSN, {"input", "target"}, input=[-0.1, -2.0, -0.5, 0.25, -1.5],
                    target=[0.31, 0.05, 0.0, 0.9, 0.42])
    # binary_cross_entropy_with_logits: input.sigmoid() as PyTorch's kernel
    # has it, SLEEF's exp on whole vectors of 8, libm's on the last n % 8.
    x = torch.zeros(3, 3, 4, dtype=D)
    t = torch.zeros(3, 3, 4, dtype=D)
    x[1, 0, 1], t[1, 0, 1], x[2, 2, 3], t[2, 2, 3] = 0.9914222049755121, 0.84, -1.3, 0.25
    yield from case("binary_cross_entropy_with_logits", MSN, {"input", "target"}, input=x,
                    target=t)


def main():
    print("/* Generated by: /usr/bin/python3 tests/engine/loss_cases.py > "
          "tests/engine/loss_cases.h")
    print(" * (PyTorch %s). Do not edit: change the script and run it again. */" %
          torch.__version__)
    print("""typedef struct {
    int ndim;
    int64_t shape[3];
    const double *data;    /* NULL: the argument is None */
    bool requires_grad;
    const double *grad;    /* PyTorch's .grad after backward; NULL: None */
} LossArg;

typedef struct {
    const char *loss, *reduction;
    int num_tensors;
    LossArg tensors[4];    /* the tensor parameters, in the signature's order */
    double numbers[3];     /* the number parameters */
    bool flags[1];         /* the boolean parameters */
    int out_ndim;
    int64_t out_shape[3];
    const double *out;
    const double *g;       /* the gradient backward was given (out's elements) */
} LossCase;
""")
    print("static const LossCase loss_cases[] = {")
    print("\n".join(cases()))
    print("};")
    print("/* PyTorch's bits: every value and gradient exactly. */")
    print("static const LossCase loss_exact_cases[] = {")
    print("\n".join(exact_cases()))
    print("};")


main()
