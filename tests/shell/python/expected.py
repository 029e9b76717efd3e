"""Prints what CPython with PyTorch (default dtype float64) gives for each
tests/shell/python/*.py: its output, then for an exception the line it was
raised on and its name, as python_subset.sh reduces ag's messages.
Made with: /usr/bin/python3 tests/shell/python/expected.py > tests/shell/python_subset.out
"""
import contextlib, glob, io, os, sys, traceback
import torch

torch.set_default_dtype(torch.float64)
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)  # import_local.py imports mod_helpers and mod_pkg beside it
for path in sorted(glob.glob(os.path.join(here, "*.py"))):
    name = os.path.basename(path)
    if name == "expected.py" or name.startswith("mod_"):  # mod_*: modules the tests import
        continue
    print("---", name)
    sys.stdout.flush()
    # each file runs as in a process of its own (ag's): global modes reset
    torch.autograd.set_detect_anomaly(False)
    torch.set_grad_enabled(True)
    torch.set_default_dtype(torch.float64)
    sys.setrecursionlimit(1000)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            code = compile(open(path).read(), path, "exec")
            exec(code, {"__name__": "__main__"})
        sys.stdout.write(out.getvalue())
    except SyntaxError as e:
        sys.stdout.write(out.getvalue())
        print(f"line {e.lineno}: {type(e).__name__}")
    except Exception as e:
        sys.stdout.write(out.getvalue())
        line = [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == path][-1]
        print(f"line {line}: {type(e).__name__}")
