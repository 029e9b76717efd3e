r"""PyTorch's numbers for the two digraphs of tests/shell/dot_snapshot.sh,
written in the layout :dot gives them (ag's: a record per tensor, nearest
the loss first, an op node before each op's output, edges operand by
operand), every data, grad and local derivative computed by PyTorch:

    /usr/bin/python3 tests/shell/dot_snapshot_torch.py > /tmp/dot_torch.txt
    sed -n '/^digraph/,/^}/p' tests/shell/dot_snapshot.out | diff - /tmp/dot_torch.txt
"""
import torch

torch.set_default_dtype(torch.float64)
T = torch.tensor


def values(what, t):
    v = t.detach().reshape(-1)
    if v.numel() == 1:
        return f" | {what} {v.item():.4f}"
    if v.numel() <= 6:
        return f" | {what} [" + ", ".join(f"{x:.4f}" for x in v.tolist()) + "]"
    return (f" | {what} min {v.min().item():.4f} max {v.max().item():.4f} "
            f"norm {v.norm().item():.4f}")


def shape(t):
    s = tuple(t.shape)
    return "(" + ", ".join(map(str, s)) + ("," if len(s) == 1 else "") + ")"


def local(op, args, k):
    args = [a.detach().clone().requires_grad_(i == k) for i, a in enumerate(args)]
    return torch.autograd.grad(op(*args), args[k])[0].item()


def digraph(title, nodes):
    """nodes, in :dot's order: (name, tensor, symbol or None, op, [operand node indices])"""
    print(f'digraph "{title}" {{\n  rankdir=LR;\n  node [fontname="Helvetica", fontsize=11];')
    for i, (name, t, symbol, _, _) in enumerate(nodes):
        leaf = symbol is None
        head = name or ("leaf" if leaf and t.requires_grad else "const" if leaf else "")
        if t.dim() > 0:
            head += (" " if name or leaf else "") + shape(t)
        label = "{ " + head + values("data", t)
        if not leaf or t.requires_grad:
            label += values("grad", t.grad) if t.grad is not None else " | grad none"
        style = (', style="filled,bold", fillcolor="#f4cccc"' if i == 0 else
                 ', style=filled, fillcolor="#cfe2f3"' if leaf and t.requires_grad else
                 ', fontcolor="#666666"' if leaf else "")
        print(f'  n{i} [shape=record, label="{label} }}"{style}];')
        if not leaf:
            print(f'  op{i} [label="{symbol}", shape=ellipse];\n  op{i} -> n{i};')
    for i, (_, t, symbol, op, ins) in enumerate(nodes):
        for k, j in enumerate(ins):
            operands = [nodes[m][1] for m in ins]
            scalar = t.numel() == 1 and nodes[j][1].numel() == 1 and nodes[j][1].requires_grad
            label = f' [label="local {local(op, operands, k):.4f}"]' if scalar else ""
            print(f"  n{j} -> op{i}{label};")
    print("}")


def keep(*ts):
    for t in ts:
        if not t.is_leaf:
            t.retain_grad()


a, b, c, f = (T(v, requires_grad=True) for v in (2., -3., 10., -2.))
e = a * b
d = e + c
L = d * f
keep(e, d, L)
L.backward()
digraph("L", [("L", L, "*", torch.mul, [1, 2]), ("d", d, "+", torch.add, [3, 4]),
              ("f", f, None, None, []), ("e", e, "*", torch.mul, [5, 6]),
              ("c", c, None, None, []), ("a", a, None, None, []), ("b", b, None, None, [])])

w = T([0.5, -1., 1.5, -2., 2.5, -3., 3.5, 4.], requires_grad=True)
three = T(3.)
ww = w * w
ww3 = ww * three
y = ww3.sum()
keep(ww, ww3, y)
y.backward()
digraph("y", [("y", y, "sum", torch.sum, [1]), ("", ww3, "*", torch.mul, [2, 3]),
              ("", ww, "*", torch.mul, [4, 4]), ("", three, None, None, []),
              ("w", w, None, None, [])])
