# nn_train: torch_ref.py's workload as a Python file ag runs unchanged: the
# moons data, Sequential(Linear(2,16), ReLU, Linear(16,16), ReLU,
# Linear(16,1)) initialised by manual_seed(0), Adam(lr 0.01),
# BCEWithLogitsLoss on labels 0/1, 100 steps. bench/bench.c times the whole
# process less an empty one; the last loss is printed, as a check.
import math
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)
DT = torch.float64

def _moons_data():
    g = torch.Generator().manual_seed(0)
    t = torch.linspace(0, math.pi, 50, dtype=DT)
    outer = torch.stack([torch.cos(t), torch.sin(t)], 1)
    inner = torch.stack([1 - torch.cos(t), 1 - torch.sin(t) - 0.5], 1)
    X = torch.cat([outer, inner]) + 0.1 * torch.randn(100, 2, generator=g, dtype=DT)
    Y = torch.cat([-torch.ones(50, dtype=DT), torch.ones(50, dtype=DT)])
    return X, Y

X, Y = _moons_data()
T = (Y > 0).to(DT).unsqueeze(1)
torch.manual_seed(0)
proto = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                      nn.Linear(16, 1)).to(DT)
state = {k: v.clone() for k, v in proto.state_dict().items()}

def run():
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                          nn.Linear(16, 1)).to(DT)
    model.load_state_dict(state)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    lossf = nn.BCEWithLogitsLoss()
    for _ in range(100):
        opt.zero_grad()
        loss = lossf(model(X), T)
        loss.backward()
        opt.step()
    return loss.item()

print(run())
