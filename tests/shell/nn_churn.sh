# A torch.nn model built and dropped 100,000 times keeps memory flat
# (issue 17): under a 256 MB address-space limit, where a leak of a few
# kilobytes per model would run out. Under the sanitizers (whose shadow
# memory needs no such limit) 2,000 times, LeakSanitizer checking the rest.
tmp=${TMPDIR:-/tmp}/ag-nn-churn.$$
trap 'rm -f "$tmp.py"' EXIT
n=100000
[ -n "$AG_SANITIZED" ] && n=2000
cat >"$tmp.py" <<PY
import torch
import torch.nn as nn
for i in range($n):
    model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))
    loss = model(torch.ones(3, 2)).sum()
    loss.backward()
print(len(list(model.parameters())), model[0].weight.grad.shape)
PY
if [ -n "$AG_SANITIZED" ]; then
    $AG "$tmp.py" 2>&1
else
    (ulimit -v 262144 && $AG "$tmp.py" 2>&1)
fi
echo "[exit $?]"
