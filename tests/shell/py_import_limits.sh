# Importing a module CPython or PyTorch has and ag does not (shutil, argparse,
# numpy, torch.distributions) is CPython's ModuleNotFoundError, its message
# saying what ag runs; an except ImportError clause takes it (a script's
# `try: import graphviz` / `except ImportError:` goes on without it), as
# it takes a module no one has.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-imports.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
for line in 'import shutil' 'import argparse' 'from numpy import array' 'import torch.distributions' \
            'import nosuchthing' 'try:\n    import shutil\nexcept ImportError:\n    print("caught")' \
            'try:\n    import nosuchthing\nexcept ImportError as e:\n    print("caught:", e)'; do
    printf "$line\n" >"$tmp/t.py"
    (cd "$tmp" && $AG t.py 2>&1); echo "[exit $?]"
done
