# gradgradcheck (gradgradcheck.inc): ok for right second derivatives, FAIL
# (a report, status 0) for a gradient whose own gradient is wrong; then its
# errors and its help. Errors below 1e-4 are shown as "<1e-4" (their digits
# depend on rounding).
out=$($AG gradgradcheck.inc 2>&1); status=$?
printf '%s\n' "$out" | sed -E 's/error (< 1e-6|0\.0e\+00|[1-9]\.[0-9]e-(0[5-9]|[1-9][0-9]))/error <1e-4/g'
echo "[exit $status]"
e() { $AG -e "$1" 2>&1; echo "[exit $?]"; }
e 'f(x) = sum(x); gradgradcheck(f, tensor([1., 2.]))'
e 'gradgradcheck(nosuchfn, tensor(1., grad))'
e 'f(x) = sum(x); gradgradcheck(f)'
e ':help gradgradcheck'
