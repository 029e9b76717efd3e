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
# In a .py file, torch.autograd.gradgradcheck returns True or raises, as
# PyTorch's: its first mismatch, a RuntimeError (PyTorch's GradcheckError
# is one) with PyTorch's first line, stops the script at the call; the
# numbers after it depend on the random grad_outputs, so only that line.
py=${TMPDIR:-/tmp}/ag-gradgradcheck.$$.py
cat >"$py" <<'PY'
import torch
x = torch.tensor([0.5, -1., 2.], requires_grad=True)
cube = lambda t: (t ** 3).detach() + 3 * (t ** 2).detach() * (t - t.detach())
print(torch.autograd.gradcheck(cube, x))
print(torch.autograd.gradgradcheck(cube, x))
PY
out=$($AG "$py" 2>&1); status=$?
printf '%s\n' "$out" | head -2 | sed "s|^$py|SCRIPT|"
echo "[exit $status]"
rm -f "$py"
