"""Checks notebooks executed by the ag kernel (tests/notebook/run.sh).

usage: check.py EXECUTED_DIR NOTEBOOK...

For each notebook (the committed one, and EXECUTED_DIR/its name, run afresh):
  * a cell tagged raises-exception ends in one error (whose "NAME: VALUE"
    holds the cell's metadata expect_error, when it has one); no other
    cell has an error; some cells have results;
  * every picture (image/svg+xml) parses as XML with an <svg> root, and a
    cell that starts with plot( shows one;
  * a cell that starts with draw( shows one picture (the graph, through
    Graphviz);
  * the fresh run's outputs are the committed ones (text, pictures, errors),
    so the committed outputs are what the kernel makes now;
  * the numbers are PyTorch's, where PyTorch is installed: for a notebook
    whose first cell starts with import, what its cells print is what
    CPython + PyTorch print running the same cells; for autograd_by_hand,
    reference_autograd_by_hand() below computes its numbers in PyTorch.
Prints "N passed, N failed" last.
"""
import os
import re
import subprocess
import sys
import xml.dom.minidom

import nbformat

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("ok", what)
    else:
        failed += 1
        print("FAIL", what)


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def summary(outputs):
    """The outputs of a cell as comparable tuples (stream parts joined)."""
    out = []
    for o in outputs:
        if o.output_type == "stream":
            if out and out[-1][0] == o.name:
                out[-1] = (o.name, out[-1][1] + o.text)
            else:
                out.append((o.name, o.text))
        elif o.output_type == "error":
            out.append(("error", o.ename, o.evalue, tuple(o.traceback)))
        else:
            out.append((o.output_type, tuple(sorted(o.data.items()))))
    return out


def pictures(cell):
    return [o.data["image/svg+xml"] for o in cell.get("outputs", [])
            if o.output_type == "display_data" and "image/svg+xml" in o.data]


def svg_parses(text):
    try:
        return xml.dom.minidom.parseString(text).documentElement.tagName == "svg"
    except Exception:
        return False


def stdout_of(cell):
    return "".join(o.text for o in cell.get("outputs", [])
                   if o.output_type == "stream" and o.name == "stdout")


def check_cells(name, fresh, committed):
    cells = [c for c in fresh.cells if c.cell_type == "code"]
    results = [o.data.get("text/plain", "") for c in cells for o in c.outputs
               if o.output_type == "execute_result"]
    check(results, "%s: cells have results (Out[n]), as text" % name)
    before = [c for c in committed.cells if c.cell_type == "code"]
    check(len(cells) == len(before), "%s: the same cells" % name)
    for i, (cell, old) in enumerate(zip(cells, before)):
        where = "%s cell %d (%s)" % (name, i + 1, cell.source.split("\n")[0][:40])
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if "raises-exception" in tags(cell):
            check(len(errors) == 1, where + ": stops with an error")
            expected = cell.metadata.get("expect_error")
            if expected and errors:
                got = "%s: %s" % (errors[0].ename, errors[0].evalue)
                check(expected in got, where + ": the error says '%s'" % expected, )
                if expected not in got:
                    print("  it says:", got)
        else:
            check(not errors, where + ": no error" + (": %s" % errors[0].evalue if errors else ""))
        for svg in pictures(cell):
            check(svg_parses(svg), where + ": the picture parses as SVG")
        if cell.source.startswith("plot(") or cell.source.startswith("draw("):
            check(len(pictures(cell)) == 1, where + ": shows one picture")
        same = summary(cell.outputs) == summary(old.get("outputs", []))
        check(same, where + ": the outputs committed")
        if not same:
            print("  committed:", summary(old.get("outputs", []))[:3])
            print("  now:      ", summary(cell.outputs)[:3])


def have_torch():
    try:
        import torch  # noqa: F401
        return True
    except ImportError:
        print("(PyTorch is not installed: the numbers are not compared with PyTorch's; "
              "apt-get install python3-torch)")
        return False


def check_python_notebook(name, fresh):
    """The cells run by CPython + PyTorch print what the kernel printed."""
    cells = [c for c in fresh.cells if c.cell_type == "code" and "raises-exception" not in tags(c)]
    code = "\n".join(c.source for c in cells)
    real = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    check(real.returncode == 0 and real.stdout == "".join(stdout_of(c) for c in cells),
          "%s: prints what CPython + PyTorch print" % name)


def numbers(text):
    """The numbers in text, not the digits of names (x1)."""
    return [float(x) for x in re.findall(r"(?<![\w.])-?\d+(?:\.\d*)?(?:e[-+]?\d+)?", text)]


def close(a, b, rel=1e-4):
    return len(a) == len(b) and all(abs(x - y) <= rel * max(1.0, abs(y)) for x, y in zip(a, b))


def reference_autograd_by_hand():
    """The notebook's numbers in PyTorch (float64), cell by cell: the
    source's first line, and the numbers its output shows."""
    import torch
    torch.set_default_dtype(torch.float64)
    t = lambda v: torch.tensor(v, requires_grad=True)
    a, b, c, f = t(2.0), t(-3.0), t(10.0), t(-2.0)
    L = (a * b + c) * f
    ref = {"a = tensor(2.0, grad)": [L.item()]}
    L.backward()
    ref["backward(L)"] = [a.grad.item(), b.grad.item(), c.grad.item(), f.grad.item()]
    x1, x2, w1, w2, b = t(2.0), t(0.0), t(-3.0), t(1.0), t(6.8813735870195432)
    o = torch.tanh(x1 * w1 + x2 * w2 + b)
    ref["x1 = tensor(2.0, grad)"] = [o.item()]
    o.backward()  # printed in the order the names were first bound: b (the first cell's), x1, ...
    ref["backward(o)"] = [b.grad.item(), x1.grad.item(), x2.grad.item(), w1.grad.item(),
                          w2.grad.item()]
    x = t(0.5)
    y = torch.tanh(x)
    y.backward()
    ref["x = tensor(0.5, grad)"] = [y.item(), x.grad.item()]
    torch.manual_seed(1)
    xs = torch.tensor([[2., 3., -1.], [3., -1., 0.5], [0.5, 1., 1.], [1., 1., -1.]])
    ys = torch.tensor([1., -1., -1., 1.])
    W1 = (torch.randn(3, 4, dtype=torch.float32).double() * 0.5).requires_grad_()
    b1 = torch.zeros(4, requires_grad=True)
    W2 = (torch.randn(4, 1, dtype=torch.float32).double() * 0.5).requires_grad_()
    b2 = torch.zeros(1, requires_grad=True)
    printed = []
    for step in range(60):
        pred = torch.tanh(torch.tanh(xs @ W1 + b1) @ W2 + b2).reshape(4)
        loss = ((pred - ys) ** 2).sum()
        loss.backward()
        with torch.no_grad():
            for p in (W1, b1, W2, b2):
                p -= 0.05 * p.grad
                p.grad = None
        if step % 10 == 0:
            printed += [step, loss.item()]
    ref["manual_seed(1)"] = printed + pred.tolist()
    return ref


def check_reference(name, fresh, ref):
    seen = set()
    for cell in fresh.cells:
        first = cell.source.split("\n")[0]
        if cell.cell_type != "code" or first not in ref or first in seen:
            continue  # (the first cell of each first line: backward(L) comes twice)
        seen.add(first)
        text = "".join(o.text if o.output_type == "stream" else o.data.get("text/plain", "")
                       for o in cell.outputs if o.output_type != "error")
        got = [x for x in numbers(text)]
        check(close(got, ref[first]), "%s: '%s' shows PyTorch's numbers" % (name, first))
        if not close(got, ref[first]):
            print("  ag:     ", got)
            print("  PyTorch:", ref[first])


def main(executed, notebooks):
    torch = have_torch()
    for path in notebooks:
        name = os.path.basename(path)
        committed = nbformat.read(path, 4)
        fresh = nbformat.read(os.path.join(executed, name), 4)
        check_cells(name, fresh, committed)
        first = next(c for c in fresh.cells if c.cell_type == "code").source
        if torch and re.match(r"\s*(import|from)\s", first):
            check_python_notebook(name, fresh)
        if torch and name == "autograd_by_hand.ipynb":
            check_reference(name, fresh, reference_autograd_by_hand())
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
