"""Runs the lines of reductions_shapes.sh's script in PyTorch 1.13 and
compares what it prints with reductions_shapes.out (up to the errors):

    /usr/bin/python3 tests/shell/reductions_shapes_torch.py

PyTorch runs in float64 by default here; max and min along a dim give their
.values; grad_fn names and
the `x.grad = ` prefix of ag's backward are left out of the comparison.
Exits 1 on a difference.
"""
import os
import re
import sys

import torch

torch.set_default_dtype(torch.float64)
here = os.path.dirname(os.path.abspath(__file__))
script = open(os.path.join(here, "reductions_shapes.sh")).read()
lines = script.split("<<'EOF'\n", 1)[1].split("\nEOF\n", 1)[0].split("\n")
env = {"torch": torch, "inf": float("inf")}
printed = []
for line in lines:
    if re.match(r"^\w+ = ", line):
        exec(line, env)
        continue
    src = line
    if re.search(r"\b(max|min)\([^)]*(,|dim=|\d)", src):  # along a dim
        src = "(%s).values" % src
    r = eval(src, env)
    if r is None:  # y.backward(): ag prints the gradients it gave
        r = env["x"].grad
    printed.append(str(tuple(r)) if isinstance(r, torch.Size) else str(r))


def normal(text):
    text = re.sub(r", grad_fn=<\w+>", "", text)
    text = re.sub(r"^x\.grad = ", "", text, flags=re.M)
    return [l.strip() for l in text.strip().split("\n")]


ours = open(os.path.join(here, "reductions_shapes.out")).read().split("<-e>")[0]
want, got = normal("\n".join(printed)), normal(ours)
for i, (a, b) in enumerate(zip(want, got)):
    if a != b:
        print("line %d: PyTorch %r, ag %r" % (i + 1, a, b))
        sys.exit(1)
if len(want) != len(got):
    print("PyTorch printed %d lines, ag %d" % (len(want), len(got)))
    sys.exit(1)
print("%d lines agree with PyTorch" % len(want))
