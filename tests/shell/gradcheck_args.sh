# gradcheck with several arguments, some not requiring grad; .grad left
# alone (gradcheck_args.inc); then its errors. Errors below 1e-4 are shown
# as "<1e-4" (their digits depend on rounding).
out=$($AG gradcheck_args.inc 2>&1); status=$?
printf '%s\n' "$out" | sed -E 's/error (< 1e-6|0\.0e\+00|[1-9]\.[0-9]e-(0[5-9]|[1-9][0-9]))/error <1e-4/g'
echo "[exit $status]"
e() { $AG -e "$1" 2>&1; echo "[exit $?]"; }
e 'f(x) = sum(x); gradcheck(f, tensor([1., 2.]))'
e 'f(x, y) = sum(x * y); x = tensor([1., 2.]); gradcheck(f, x, [3., 4.])'
e 'x = tensor([1., 2.], grad); gradcheck(x, x)'
e 'gradcheck(3, tensor(1., grad))'
e 'gradcheck(backward, tensor(1., grad))'
e 'gradcheck(nosuchfn, tensor(1., grad))'
e 'f(x) = sum(x); gradcheck(f)'
e 'f(x, y) = x; gradcheck(f, tensor(1., grad))'
e 'x = tensor(1., grad); f(x, y) = x; gradcheck(f, x, x.grad)'
# An argument used as a dimension or an axis: moving it by the step makes f
# fail, so it is reported as not differentiable (the reason in brackets),
# the other arguments are still checked, and the verdict is theirs (issue
# 9: gradcheck failed with a value the user never wrote).
e 's(x, d) = sum(x, d); gradcheck(s, tensor([[1., 2.], [3., 4.]], grad), tensor(1., grad))'
e 'r(x, n) = sum(reshape(x, n, -1) * [[1.], [2.]]); gradcheck(r, tensor([1., 2., 3., 4.], grad), tensor(2., grad))'
