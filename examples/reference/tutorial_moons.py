"""PyTorch 1.13 (float64) side of docs/tutorial.md, chapter 10 ("Training a
network"): the numbers its sessions print, computed by PyTorch.

    /usr/bin/python3 examples/reference/tutorial_moons.py   (from the repository root)

The data and starting weights are those of examples/data/moons.ag (the setup
part of examples/micrograd_moons.ag), drawn after torch.manual_seed(0) by
examples/reference/micrograd_moons.py: ag's stream is PyTorch's.
"""
import importlib.util
import os

import torch

torch.set_default_dtype(torch.float64)
HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("micrograd_moons", os.path.join(HERE, "micrograd_moons.py"))
moons = importlib.util.module_from_spec(spec)
spec.loader.exec_module(moons)


def model(p, X):
    W1, b1, W2, b2, W3, b3 = p
    h = torch.relu(X @ W1 + b1)
    h = torch.relu(h @ W2 + b2)
    return (h @ W3 + b3).squeeze(1)


def train(v, make_opt, lr_at=None):
    X, y = v["X"], v["y"]
    p = [v[n].clone().requires_grad_() for n in moons.NAMES[2:]]
    opt = make_opt(p)
    losses = torch.zeros(100)
    for k in range(100):
        loss = torch.relu(1 - y * model(p, X)).mean() + 1e-4 * sum((w * w).sum() for w in p)
        losses[k] = loss.item()
        if lr_at:
            for group in opt.param_groups:
                group["lr"] = lr_at(k)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return p, losses


def main():
    v = moons.ag_inputs()
    X, y = v["X"], v["y"]
    p = [v[n] for n in moons.NAMES[2:]]
    scores = model(p, X)
    print("scores[:4]", scores[:4])
    margins = torch.relu(1 - y * scores)
    print("margins[:4]", margins[:4])
    print("margins.mean()", margins.mean())
    print("accuracy", ((scores > 0) == (y > 0)).double().mean())

    p, losses = train(v, lambda p: torch.optim.SGD(p, lr=1.0), lambda k: 1.0 - 0.9 * k / 100)
    print("SGD losses[::10]", losses[::10])
    print("SGD max", losses.max(), "at", losses.argmax().item(), "last", losses[-1])
    print("SGD accuracy", ((model(p, X) > 0) == (y > 0)).double().mean())
    with torch.no_grad():
        print("SGD new points", model(p, torch.tensor([[0., 1.], [1., -0.5], [2., 0.5]])))

    p, losses = train(v, lambda p: torch.optim.Adam(p, lr=0.01))
    print("Adam losses[::10]", losses[::10])
    print("Adam accuracy", ((model(p, X) > 0) == (y > 0)).double().mean())


main()
