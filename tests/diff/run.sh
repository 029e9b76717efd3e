#!/bin/sh
# make difftest: ag against PyTorch on random programs (tests/diff/README.md).
# Finds a python3 that has torch ($DIFF_PYTHON, then /usr/bin/python3, then
# python3 on PATH); without one, says in one line what to install.
# Usage: tests/diff/run.sh [difftest.py options: --ag --seed --count --out ...]
dir=$(dirname "$0")
for py in ${DIFF_PYTHON:-} /usr/bin/python3 python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import torch' >/dev/null 2>&1; then
        PYTHONDONTWRITEBYTECODE=1 OMP_NUM_THREADS=1 exec "$py" "$dir/difftest.py" "$@"
    fi
done
echo "make difftest needs PyTorch for python3: apt-get install python3-torch" >&2
exit 1
