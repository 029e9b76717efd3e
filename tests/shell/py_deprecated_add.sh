# x.add_(alpha, other) and x.sub_(alpha, other), PyTorch 1.13's deprecated
# overload that the char-RNN tutorials use (p.data.add_(-lr, p.grad.data)):
# PyTorch's values on stdout (py_deprecated_add.out: /usr/bin/python3 with
# PyTorch running the same script, default dtype float64), and its warning
# once on stderr, as PyTorch warns once.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-addalpha.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/t.py" <<'PY'
import torch
p = torch.ones(3)
g = torch.tensor([1.0, 2.0, 3.0])
p.add_(-0.5, g)
print(p)
w = torch.ones(2, requires_grad=True)
(w * w).sum().backward()
for q in [w]:
    q.data.add_(-0.1, q.grad.data)
    q.data.sub_(0.5, q.grad.data)
print(w)
PY
$AG "$tmp/t.py" 2>"$tmp/err"
grep -c "UserWarning: This overload of add_ is deprecated" "$tmp/err"
