# 100,000 double-backward steps (a gradient of a gradient with
# create_graph=True, then a backward through it) keep memory flat: each
# step's graphs go with the backward that runs through them, under a 64 MB
# address-space limit that a leak of one graph a step (some 1.5 KB: 150 MB
# in all) would pass. Under the sanitizers (no such limit) 1,000 steps.
tmp=${TMPDIR:-/tmp}/ag-double-backward-memory.$$
trap 'rm -f "$tmp.py"' EXIT
n=100000
[ -n "$AG_SANITIZED" ] && n=1000
cat >"$tmp.py" <<PY
import torch
w = torch.tensor([0.5, -0.25], requires_grad=True)
x = torch.tensor([1.5, 2.0])
for step in range($n):
    loss = (torch.tanh(w * x) ** 2).sum()
    g, = torch.autograd.grad(loss, w, create_graph=True)
    (loss + (g * g).sum()).backward()
    w.grad = None
print(torch.autograd.grad((w * w).sum(), w)[0])
PY
if [ -n "$AG_SANITIZED" ]; then
    $AG "$tmp.py" 2>&1
else
    (ulimit -v 65536 && $AG "$tmp.py" 2>&1)
fi
echo "[exit $?]"
