#!/usr/bin/env python3
"""Run one Python file the way `python3 FILE.py` would, with PyTorch's
default dtype set to float64 first: the expected output for `ag FILE.py`.

    /usr/bin/python3 tests/python/oracle.py examples/python/NAME.py > examples/python/NAME.out

The script runs as __main__ (runpy.run_path), with sys.argv = [FILE] and
sys.path[0] and the working directory set to the file's folder.  Its stdout
is this program's stdout.  When it raises, stdout is flushed, the error is
written to stderr the way ag reports one,

    FILE:LINE:COL: error: ExceptionName: message

(LINE and COL of the innermost frame in FILE; COL is 1 when unknown), and
the exit status is 1.
"""
import os
import runpy
import sys
import traceback


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: oracle.py FILE.py [ARG...]\n")
        return 2
    path = sys.argv[1]
    full = os.path.abspath(path)

    import torch
    torch.set_default_dtype(torch.float64)

    sys.argv = [path] + sys.argv[2:]
    sys.path.insert(0, os.path.dirname(full))
    os.chdir(os.path.dirname(full))
    try:
        runpy.run_path(full, run_name="__main__")
    except SystemExit as e:
        sys.stdout.flush()
        code = e.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        sys.stderr.write("%s\n" % code)
        return 1
    except BaseException as e:
        sys.stdout.flush()
        line, col = 1, 1
        if isinstance(e, SyntaxError) and e.filename and \
                os.path.abspath(e.filename) == full:
            line = e.lineno or 1
            col = e.offset or 1
        else:
            for fs in traceback.extract_tb(e.__traceback__):
                if os.path.abspath(fs.filename) == full:
                    line = fs.lineno or 1
                    colno = getattr(fs, "colno", None)
                    col = colno + 1 if colno is not None else 1
        msg = str(e)
        text = type(e).__name__ + (": " + msg if msg else "")
        sys.stderr.write("%s:%d:%d: error: %s\n" % (path, line, col, text))
        return 1
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
