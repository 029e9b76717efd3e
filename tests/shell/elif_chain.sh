# An else-if / elif chain recurses once per branch in the parser and the
# evaluator: up to 2000 branches run (the last one taken), past that a
# message, never a stack overflow (70,000 on one line crashed the parser),
# in the release and the sanitizer builds alike.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-elif.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# chain N: branches 0..N-1 on one line (.ag), x = N-1 takes the last
chain() { awk -v n="$1" 'BEGIN { printf "x = %d\nif x == 0 { y = 0 }", n - 1
    for (i = 1; i < n; i++) printf " else if x == %d { y = %d }", i, i; print "\nprint(y)" }'; }
pychain() { awk -v n="$1" 'BEGIN { printf "x = %d\nif x == 0:\n    y = 0\n", n - 1
    for (i = 1; i < n; i++) printf "elif x == %d:\n    y = %d\n", i, i; print "print(y)" }'; }
for n in 2000 2001 70000; do
    echo "--- else if, $n branches"
    chain $n >"$tmp/chain.ag"
    { $AG "$tmp/chain.ag" 2>&1; echo "[exit $?]"; } | sed "s|$tmp/||"
    echo "--- elif, $n branches"
    pychain $n >"$tmp/chain.py"
    { $AG "$tmp/chain.py" 2>&1; echo "[exit $?]"; } | sed "s|$tmp/||"
done
