# Importing a module CPython or PyTorch has and ag does not (os, argparse,
# numpy, torch.distributions) stops with ag's own message, which says what
# ag runs; no except clause catches it. A module no one has is CPython's
# ModuleNotFoundError, which one does.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-imports.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
for line in 'import os' 'import argparse' 'from numpy import array' 'import torch.distributions' \
            'import nosuchthing' 'try:\n    import os\nexcept ImportError:\n    print("caught")' \
            'try:\n    import nosuchthing\nexcept ImportError as e:\n    print("caught:", e)'; do
    printf "$line\n" >"$tmp/t.py"
    (cd "$tmp" && $AG t.py 2>&1); echo "[exit $?]"
done
