#!/bin/sh
# Proves the expected outputs are Python's: regenerates every
# examples/python/NAME.out (and examples/python/later/NAME.out) with
# /usr/bin/python3 + PyTorch through tests/python/oracle.py into a temporary
# folder and diffs each against the committed one.  Exits 0 when all agree,
# 1 when one differs, 2 when python3 or PyTorch is missing.
#
#   sh tests/python/check_oracle.sh [FILE.py...]

py=${PYTHON:-/usr/bin/python3}
if ! "$py" -c 'import torch' >/dev/null 2>&1; then
    echo "make test-python needs PyTorch: apt-get install python3-torch"
    exit 2
fi

here=$(cd "$(dirname "$0")/../.." && pwd)
# With no FILEs, run from the repository root so that the names in error
# lines read examples/python/NAME.py, as in the NAME.err files.
if [ $# -eq 0 ]; then
    cd "$here" || exit 2
    set -- examples/python/*.py
    for f in examples/python/later/*.py; do
        [ -f "$f" ] && set -- "$@" "$f"
    done
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-oracle.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

same=0
differ=0
for f in "$@"; do
    name=$(basename "$f" .py)
    dir=$(dirname "$f")
    "$py" "$here/tests/python/oracle.py" "$f" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    bad=
    if [ ! -f "$dir/$name.out" ]; then
        bad=1
        echo "oracle: $name: no $dir/$name.out"
    elif ! cmp -s "$dir/$name.out" "$tmp/$name.out"; then
        bad=1
        echo "oracle: $name: $dir/$name.out is not what Python prints:"
        diff -u "$dir/$name.out" "$tmp/$name.out" | sed -e '1,2d' -e 's/^/    /' | head -n 20
    fi
    if [ -f "$dir/$name.err" ]; then
        if ! cmp -s "$dir/$name.err" "$tmp/$name.err"; then
            bad=1
            echo "oracle: $name: $dir/$name.err is not Python's error:"
            sed -e 's/^/    python: /' "$tmp/$name.err"
        fi
    elif [ "$rc" -ne 0 ]; then
        bad=1
        echo "oracle: $name: Python exits $rc:"
        sed -e 's/^/    /' "$tmp/$name.err" | head -n 5
    fi
    if [ -n "$bad" ]; then differ=$((differ + 1)); else same=$((same + 1)); fi
done

echo "oracle: $same expected outputs are Python's, $differ differ"
[ "$differ" -eq 0 ]
