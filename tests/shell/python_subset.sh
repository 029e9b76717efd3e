# The Python subset (tests/shell/python/*.py) prints what CPython with
# PyTorch prints: the expected output is python/expected.py's (see there for
# the command), and an error is reduced to its line and exception name.
# PY_FILES="python/NAME.py ..." runs only those (tests/one.sh).
# The files named in python/NEEDS_SLEEF print PyTorch's last bits of sin,
# log, exp..., which ag gives only where SLEEF loads: where it does not
# (AG_VECMATH, set by tests/run.sh, says libm), their expected text stands
# in for their output, and tests/run.sh says they were left out. The same
# for python/NEEDS_OWN_MATMUL, the reference BLAS's bits of matrix
# products, which OpenBLAS (AG_MATMUL, tests/run.sh's) sums otherwise.
needs_sleef=" $(tr '\n' ' ' <python/NEEDS_SLEEF) "
needs_own=" $(tr '\n' ' ' <python/NEEDS_OWN_MATMUL) "
for f in ${PY_FILES:-python/*.py}; do
    case $f in python/expected.py|python/mod_*) continue ;; esac  # mod_*: modules the tests import
    echo "--- ${f#python/}"
    aside=
    case $needs_sleef in *" ${f#python/} "*) [ -n "$AG_VECMATH" ] && [ "$AG_VECMATH" != SLEEF ] && aside=1 ;; esac
    case $needs_own in *" ${f#python/} "*) case $AG_MATMUL in OpenBLAS*) aside=1 ;; esac ;; esac
    if [ -n "$aside" ]; then
        awk -v h="--- ${f#python/}" '$0 == h { on = 1; next } /^--- / { on = 0 } on' python_subset.out
        continue
    fi
    $AG "$f" 2>&1 | sed -E 's/^[^ ]*:([0-9]+):[0-9]+: error: ([A-Za-z]+(Error|Exception))(:.*)?$/line \1: \2/'
done
