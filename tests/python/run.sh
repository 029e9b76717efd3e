#!/bin/sh
# Runs Python scripts with ag and compares them with what CPython + PyTorch
# printed (tests/python/README.md):
#
#   sh tests/python/run.sh AG [FILE.py...]
#
# With no FILEs it runs every examples/python/*.py.  For each NAME.py:
# stdout must equal NAME.out; the exit status must be 0, or, where NAME.err
# exists, nonzero with NAME.err's line among the lines ag wrote to stderr.
# Prints "ok NAME" or what differs, then "N passed, N failed"; exits 1 on
# any failure.  Plain POSIX sh; needs no Python.

if [ $# -lt 1 ]; then
    echo "usage: sh tests/python/run.sh AG [FILE.py...]" >&2
    exit 2
fi
ag=$1
shift
case $ag in
    */*) ;;
    *) ag=./$ag ;;
esac
if [ ! -x "$ag" ]; then
    echo "run.sh: $ag is not an executable (build it with make)" >&2
    exit 2
fi

# With no FILEs, run from the repository root so that the names in error
# lines read examples/python/NAME.py, as in the NAME.err files.
if [ $# -eq 0 ]; then
    case $ag in
        /*) ;;
        *) ag=$(pwd)/$ag ;;
    esac
    cd "$(dirname "$0")/../.." || exit 2
    set -- examples/python/*.py
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-python.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

passed=0
failed=0
for py in "$@"; do
    name=$(basename "$py" .py)
    dir=$(dirname "$py")
    want_out=$dir/$name.out
    want_err=$dir/$name.err
    if [ ! -f "$want_out" ]; then
        echo "FAIL $name: no $want_out"
        failed=$((failed + 1))
        continue
    fi
    "$ag" "$py" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    bad=
    if ! cmp -s "$want_out" "$tmp/out"; then
        bad=1
        echo "FAIL $name: stdout differs (- expected, + ag)"
        diff -u "$want_out" "$tmp/out" | sed -e '1,2d' -e 's/^/    /' | head -n 40
    fi
    if [ -f "$want_err" ]; then
        line=$(head -n 1 "$want_err")
        if [ "$rc" -eq 0 ]; then
            bad=1
            echo "FAIL $name: exit status 0, expected an error: $line"
        elif ! grep -Fqx -e "$line" "$tmp/err"; then
            bad=1
            echo "FAIL $name: expected on stderr: $line"
            sed -e 's/^/    got: /' "$tmp/err" | head -n 5
        fi
    elif [ "$rc" -ne 0 ]; then
        bad=1
        echo "FAIL $name: exit status $rc"
        sed -e 's/^/    /' "$tmp/err" | head -n 5
    fi
    if [ -n "$bad" ]; then
        failed=$((failed + 1))
    else
        echo "ok $name"
        passed=$((passed + 1))
    fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
