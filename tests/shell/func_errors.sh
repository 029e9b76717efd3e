# Errors of user functions: a wrong argument count, runaway recursion (direct
# and mutual), a body that uses a call returning nothing (refused when the
# function is defined), calling a variable, using a function as a value, and
# an unknown name in the body (found when called, not when defined).
e() { $AG -e "$1" 2>&1; echo "[exit $?]"; }
e 'f(x, y) = x + y; f(1)'
e 'f(x) = x; f(1, 2)'
e 'f() = 42; f(); f(1)'
e 'f(x) = f(x); f(1)'
e 'f(x) = g(x) + 1; g(x) = f(x) * 2; g(1)'
e 'f(x) = backward(x)'
e 'x = tensor(2., grad); f(x) = sum(x) + backward(x)'
e 'f(x) = x * zero_grad(x)'
e 'v = 3; v(2)'
e 'f(x) = x; f + 1'
e 'f(x) = x; y = f'
e 'f(x) = x; sum(f)'
e 'f(x) = x; f'
e 'f(x) = x * nothere; f(1)'
# A failed definition binds nothing and leaves an earlier one in place
# (checked with --check, where errors do not stop the script).
out=$($AG --check func_errors_nothing_bound.inc 2>&1); status=$?
[ $status = 0 ] || printf '%s\n' "$out"
echo "[--check exit $status]"
# Calls may nest 100 deep (a chain c1 -> c2 -> ... -> c100); one more is
# reported as runaway recursion.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-func.XXXXXX") || exit 1
i=1
while [ $i -lt 100 ]; do echo "c$i(x) = c$((i + 1))(x) + 1"; i=$((i + 1)); done >"$tmp/chain.ag"
echo 'c100(x) = x' >>"$tmp/chain.ag"
$AG "$tmp/chain.ag" -e 'c1(0)'; echo "[exit $?]"
$AG "$tmp/chain.ag" -e 'c0(x) = c1(x) + 1; c0(0)' 2>&1 | grep -c 'runaway recursion: more than 100 nested calls'
rm -rf "$tmp"
