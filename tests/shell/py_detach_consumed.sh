# x.detach_() on a result an op has already used is refused in ag (its
# consumers find their gradient through it, where PyTorch's keep their
# own edge): a departure from PyTorch (docs/language.md), with ag's
# documented message; the tensor is unchanged.
f="${TMPDIR:-/tmp}/ag-detach-$$.py"
cat > "$f" <<'PY'
import torch
x = torch.ones(2, requires_grad=True)
y = x * 2
z = y * 3
try:
    y.detach_()
except RuntimeError as e:
    print(e)
print(y.requires_grad, y.grad_fn is not None)
z.sum().backward()
print(x.grad)
PY
$AG "$f" 2>&1
rm -f "$f"
