# torch.save and torch.load round trips: a model's state_dict loaded into
# another model (the same outputs), a checkpoint dict of numbers, strings,
# None, float32/int64/bool tensors, a tensor that requires grad, lists and
# tuples; every value back exactly. Run in a directory of its own. The
# expected text is CPython's: AG=/usr/bin/python3 sh py_torch_save.sh > py_torch_save.out
# (ag's file format is its own: only the round trip is compared).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-save.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/t.py" <<'PY'
import collections
import torch
import torch.nn as nn
torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
torch.save(model.state_dict(), "model.pth")
model2 = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
print(model2.load_state_dict(torch.load("model.pth")))
x = torch.randn(5, 3)
print(torch.equal(model(x), model2(x)), list(torch.load("model.pth").keys()))
ckpt = {"epoch": 3, "loss": 0.1234567890123, "name": "run\n1", "none": None, "flag": True,
        "t32": torch.tensor([0.1, 1e-30, -2.5], dtype=torch.float32),
        "ints": torch.arange(6).reshape(2, 3), "mask": torch.tensor([True, False]),
        "hist": [1, 2.5, (3, "x")], "w": torch.ones(2, requires_grad=True),
        "scalar": torch.tensor(7.0), "empty": torch.zeros(0, 2), "nested": {"a": [torch.ones(1)]}}
torch.save(ckpt, "ckpt.pt")
back = torch.load("ckpt.pt", map_location="cpu")
for k, v in back.items():
    print(k, repr(v), type(v).__name__)
print(back["t32"].tolist() == ckpt["t32"].tolist(), back["loss"] == ckpt["loss"])
print(type(torch.load("model.pth")).__name__)
torch.save(torch.tensor([[1.5]]), "t.pt")
print(torch.load("t.pt"))
PY
cd "$tmp" && $AG t.py 2>&1
