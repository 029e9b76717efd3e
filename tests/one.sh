#!/bin/sh
# make test T=NAME (make check T=NAME on the MODE's build): runs only the
# tests named, each NAME one of
#   an engine group               core, optim, ... (test_engine --list)
#   a golden file of the shell    tests/shell/NAME.ag or NAME.sh
#   a Python golden               tests/shell/python/NAME.py (its part of
#                                 python_subset.out), or examples/python/NAME.py
# given with or without its extension; T="core optimizers" runs both. A
# name that matches nothing is an error that lists the names there are.
# Usage: tests/one.sh BUILD_DIR NAME...   Prints "N passed, N failed" last.
[ $# -ge 2 ] || { echo "usage: tests/one.sh BUILD_DIR NAME..." >&2; exit 2; }
build=$(cd "$1" 2>/dev/null && pwd) || { echo "tests/one.sh: no build directory '$1'" >&2; exit 2; }
shift
cd "$(dirname "$0")/.." || exit 2
engine=$build/test_engine
ag=$build/plain/ag
[ -x "$ag" ] || ag=$build/rl/ag
case $build in *asan*|*valgrind*) AG_SANITIZED=1; export AG_SANITIZED ;; esac
passed=0 failed=0

# The last line of a runner's output: "N passed, N failed[, ...]".
count() {
    p=$(printf '%s\n' "$1" | tail -n 1 | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\1/p')
    f=$(printf '%s\n' "$1" | tail -n 1 | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\2/p')
    [ -n "$p" ] || { p=0; f=1; }
    [ "$2" -eq 0 ] || [ "$f" -ne 0 ] || f=1
    passed=$((passed + p)); failed=$((failed + f))
}

# NAMEs in a list, wrapped and indented, for the error.
names() { tr '\n' ' ' | fold -s -w 72 | sed 's/^/    /'; echo; }

# The golden names: a .ag that is a .sh test's input is not one of its own.
shell_names() {
    for t in tests/shell/*.ag tests/shell/*.sh; do
        n=${t##*/}; n=${n%.*}
        case $t in *.ag) [ -f "tests/shell/$n.sh" ] && continue ;; esac
        [ "$n" = run ] || echo "$n"
    done | sort -u
}

unknown() {
    echo "no test is named '$1'; make test T= takes these names:"
    echo "  engine groups:"; "$engine" --list | names
    echo "  golden files of the shell (tests/shell):"; shell_names | names
    echo "  Python goldens (tests/shell/python):"
    ls tests/shell/python/*.py | sed 's|.*/||; /^expected.py$/d' | names
    echo "  Python examples (examples/python):"; ls examples/python/*.py | sed 's|.*/||' | names
}

# tests/shell/python/NAME.py: ag's output reduced as python_subset.sh does,
# against that file's part of python_subset.out.
python_subset() {
    want=$(awk -v h="--- $1.py" '$0 == h { on = 1; print; next } /^--- / { on = 0 } on' \
               tests/shell/python_subset.out)
    got=$(cd tests/shell && AG="$VALGRIND $ag" PY_FILES="python/$1.py" sh python_subset.sh)
    if [ "$want" = "$got" ]; then
        echo "ok python/$1.py"; echo "1 passed, 0 failed"
    else
        echo "FAIL python/$1.py: output differs from python_subset.out (expected < > got)"
        printf '%s\n' "$want" >"${TMPDIR:-/tmp}/ag-one-want.$$"
        printf '%s\n' "$got" | diff "${TMPDIR:-/tmp}/ag-one-want.$$" - | head -n 20
        rm -f "${TMPDIR:-/tmp}/ag-one-want.$$"
        echo "0 passed, 1 failed"
    fi
}

for name in "$@"; do
    base=${name%.py}; base=${base%.ag}; base=${base%.sh}
    if [ "$base" = "$name" ] && "$engine" --list | grep -qx "$base"; then
        echo "== engine group $base"; out=$($VALGRIND "$engine" "$base" 2>&1)
    elif [ "${name%.py}" = "$name" ] && { [ -f "tests/shell/$base.ag" ] || [ -f "tests/shell/$base.sh" ]; } &&
         [ "$base" != run ]; then
        echo "== golden file tests/shell/$base"; out=$(sh tests/shell/run.sh "$ag" "$base" 2>&1)
    elif [ -f "tests/shell/python/$base.py" ] && [ "$base" != expected ]; then
        echo "== Python golden tests/shell/python/$base.py"; out=$(python_subset "$base" 2>&1)
    elif [ -f "examples/python/$base.py" ]; then
        echo "== Python example examples/python/$base.py"
        out=$(sh tests/python/run.sh "$ag" "examples/python/$base.py" 2>&1)
    else
        unknown "$name" >&2
        exit 2
    fi
    status=$?
    printf '%s\n' "$out" | sed '$d'
    count "$out" "$status"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
