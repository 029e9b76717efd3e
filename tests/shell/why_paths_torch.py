r"""PyTorch's numbers for tests/shell/why_paths.sh: for each case the
gradients backward prints, then :why's lines, each path's local derivatives
computed by PyTorch (torch.autograd.grad of the one op, the others held
fixed) and multiplied from the loss down, the sums added path by path in
:why's order (depth first, operands in order), compared with PyTorch's
.grad. The words are ag's; every number is PyTorch's (Python's repr, an
integral value without its ".0", as ag's format_number).

    /usr/bin/python3 tests/shell/why_paths_torch.py |
        diff - <(sed '/^--- refusals/,$d' tests/shell/why_paths.out)
"""
import torch

torch.set_default_dtype(torch.float64)
T = torch.tensor


def num(v):
    v = float(v)
    return str(int(v)) if v == int(v) and abs(v) < 1e16 else repr(v)


def vals(vs):
    return num(vs[0]) if len(vs) == 1 else "[" + ", ".join(num(v) for v in vs) + "]"


def local(op, args, k):
    """d op(*args) / d args[k], the others held fixed: a Jacobian (rows: the
    output's elements, columns: the input's)."""
    args = [a.detach().clone().requires_grad_(i == k) for i, a in enumerate(args)]
    out = op(*args).reshape(-1)
    rows = [torch.autograd.grad(out[r], args[k], retain_graph=True)[0].reshape(-1).tolist()
            for r in range(out.numel())]
    return rows


def times(c, jac):
    cols = len(jac[0])
    out = []
    for k in range(cols):
        s = None
        for r in range(len(c)):
            term = c[r] * jac[r][k]
            s = term if s is None else s + term
        out.append(s)
    return out


def why(name, loss, grad, paths):
    """paths: (text, [jacobians from the loss down])"""
    print(f"{name}.grad = {vals(grad)} (from the last backward, of {loss})")
    print(f"the chain rule: the sum over every path from {loss} down to {name} of")
    print("the product of the local derivatives along it:" if len(grad) == 1 else
          "the gradient pushed along it, step by step:")
    total = [0.0] * len(grad)
    for text, jacs in paths:
        c = [1.0]
        line = "  " + text
        line += " " * max(24 - len(line), 1)
        path_scalar = all(len(j) == 1 and len(j[0]) == 1 for j in jacs)
        steps = []
        for j in jacs:
            c = times(c, j)
            steps.append(vals(c))
        if path_scalar:
            line += " * ".join(num(j[0][0]) for j in jacs) + " = " + vals(c)
        else:
            line += " -> ".join(["1"] + steps)
        print(line)
        total = [t + x for t, x in zip(total, c)]
    word = "path" if len(paths) == 1 else "paths"
    if total == grad:
        print(f"  sum over {len(paths)} {word}: {vals(total)}, equal to {name}.grad")
    else:
        print(f"  sum over {len(paths)} {word}: {vals(total)}, where backward computed "
              f"{name}.grad = {vals(grad)}")
        print("(the difference is rounding: backward adds the gradients meeting at a\n"
              "node before multiplying on, the sum here adds whole paths)")


mul, add = torch.mul, torch.add


def diamond():
    print("--- the diamond")
    a, b = T(0.7, requires_grad=True), T(-1.3, requires_grad=True)
    ab = a * b
    y = ab + a
    y.backward()
    print(f"a.grad = {a.grad!s}\nb.grad = {b.grad!s}")
    J = local
    why("a", "y", [a.grad.item()], [
        ("y <- mul <- a", [J(add, [ab, a], 0), J(mul, [a, b], 0)]),
        ("y <- a", [J(add, [ab, a], 1)])])
    why("b", "y", [b.grad.item()], [("y <- mul <- b", [J(add, [ab, a], 0), J(mul, [a, b], 1)])])
    print("[exit 0]")


def shared(x0, t_too):
    x = T(x0, requires_grad=True)
    t = x * x
    t.retain_grad()
    tt = t * t
    y = tt + t
    y.backward()
    print(f"x.grad = {x.grad!s}")
    J = local
    up = J(add, [tt, t], 0)
    tx1, tx2 = J(mul, [x, x], 0), J(mul, [x, x], 1)
    paths = []
    for k in (0, 1):
        for kx, j in ((0, tx1), (1, tx2)):
            paths.append((f"y <- mul <-{k + 1}- t <-{kx + 1}- x", [up, J(mul, [t, t], k), j]))
    for kx, j in ((0, tx1), (1, tx2)):
        paths.append((f"y <- t <-{kx + 1}- x", [J(add, [tt, t], 1), j]))
    why("x", "y", [x.grad.item()], paths)
    if t_too:
        why("t", "y", [t.grad.item()], [
            ("y <- mul <-1- t", [up, J(mul, [t, t], 0)]),
            ("y <- mul <-2- t", [up, J(mul, [t, t], 1)]),
            ("y <- t", [J(add, [tt, t], 1)])])
    print("[exit 0]")


def broadcast():
    print("--- a broadcast")
    a, v = T(0.5, requires_grad=True), T([0.1, -0.2, 0.3], requires_grad=True)
    av = a * v
    s = av + a
    y = s.sum()
    y.backward()
    print(f"a.grad = {a.grad!s}\nv.grad = {v.grad!s}")
    J = local
    down = J(torch.sum, [s], 0)
    why("a", "y", [a.grad.item()], [
        ("y <- add <- mul <- a", [down, J(add, [av, a], 0), J(mul, [a, v], 0)]),
        ("y <- add <- a", [down, J(add, [av, a], 1)])])
    why("v", "y", v.grad.tolist(), [
        ("y <- add <- mul <- v", [down, J(add, [av, a], 0), J(mul, [a, v], 1)])])
    print("[exit 0]")


diamond()
print("--- a shared subexpression")
shared(0.2, True)
broadcast()
print("--- where rounding parts them: backward adds at t before multiplying by x")
shared(0.3, False)


def grouped():
    print("--- 64 paths: grouped by the op that takes x (the gradient backward sent along each edge)")
    x = T(0.9, requires_grad=True)
    t1 = x * x
    t1.retain_grad()
    t = t1
    for _ in range(5):
        t = t * t
    y = t + x
    y.backward()
    print(f"x.grad = {x.grad!s}")
    print(f"x.grad = {num(x.grad.item())} (from the last backward, of y)")
    print("too many paths to list: grouped by the op that takes x,")
    print("each the sum over the paths through it (what backward sent along that edge):")
    flows = [("y", 2, "AddBackward", 1.0),
             ("mul", 1, "MulBackward", (t1.grad * x).item()),
             ("mul", 2, "MulBackward", (t1.grad * x).item())]
    total = None
    for via, k, op, f in flows:
        print(f"  through {via} (operand {k} of {op}): {num(f)}")
        total = f if total is None else total + f
    assert total == x.grad.item()
    print(f"  sum over 3 edges: {num(total)}, equal to x.grad")
    print("[exit 0]")


grouped()
