# The Python subset (tests/shell/python/*.py) prints what CPython with
# PyTorch prints: the expected output is python/expected.py's (see there for
# the command), and an error is reduced to its line and exception name.
# PY_FILES="python/NAME.py ..." runs only those (tests/one.sh).
for f in ${PY_FILES:-python/*.py}; do
    case $f in python/expected.py|python/mod_*) continue ;; esac  # mod_*: modules the tests import
    echo "--- ${f#python/}"
    $AG "$f" 2>&1 | sed -E 's/^[^ ]*:([0-9]+):[0-9]+: error: ([A-Za-z]+(Error|Exception))(:.*)?$/line \1: \2/'
done
