# Errors of grad(f, ...): f returning more than one element (naming its
# shape), no argument requiring grad, a first argument that is not a
# function, and a wrong argument count for f.
e() { $AG -e "$1" 2>&1; echo "[exit $?]"; }
e 'f(x) = x * 2; grad(f, tensor([1., 2.], grad))'
e 'grad(exp, tensor([[1., 2.]], grad))'
e 'f(x) = sum(x); grad(f, tensor([1., 2.]))'
e 'x = tensor(1., grad); grad(x, x)'
e 'grad(2, tensor(1., grad))'
e 'f(x) = sum(x); grad(f)'
e 'f(x, y) = sum(x); grad(f, tensor(1., grad))'
# an error inside grad leaves .grad and the user's graph as they were
$AG --check grad_errors_nothing_changed.inc >/dev/null; echo "[--check exit $?]"
