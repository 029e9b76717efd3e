"""PyTorch 1.13 (float64) side of examples/micrograd_moons.ag: micrograd's
moons demo, trained in PyTorch on ag's data and starting weights.

    /usr/bin/python3 examples/reference/micrograd_moons.py   (from the repository root)

The data and starting weights are made here as the .ag's "data" and
"model" parts make them: ag's random stream is PyTorch's (the same seed, the
same float64 numbers), so torch.manual_seed(0) gives the .ag's X and weights.
It prints what the .ag prints: its `# expect:` lines (numbers as ag prints
them: whole values without ".0").
"""
import math
import torch

torch.set_default_dtype(torch.float64)
NAMES = ["X", "y", "W1", "b1", "W2", "b2", "W3", "b3"]


def num(v):
    """A number as ag prints it: Python's repr, without ".0" when whole."""
    return str(int(v)) if v == int(v) and abs(v) < 1e16 else repr(v)


def ag_inputs():
    """X, y and the starting weights of the .ag, drawn as it draws them."""
    torch.manual_seed(0)
    angle = torch.linspace(0, math.pi, 50)
    outer = torch.stack([torch.cos(angle), torch.sin(angle)], 1)
    inner = torch.stack([1 - torch.cos(angle), 1 - torch.sin(angle) - 0.5], 1)
    out = {"X": torch.cat([outer, inner]) + 0.1 * torch.randn(100, 2),
           "y": torch.cat([-torch.ones(50), torch.ones(50)])}
    for w, b, shape in (("W1", "b1", (2, 16)), ("W2", "b2", (16, 16)), ("W3", "b3", (16, 1))):
        out[w] = torch.rand(*shape) * 2 - 1
        out[b] = torch.zeros(shape[1])
    return out


def main():
    v = ag_inputs()
    X, y = v["X"], v["y"]
    params = [v[n].clone().requires_grad_() for n in NAMES[2:]]
    W1, b1, W2, b2, W3, b3 = params
    print(tuple(X.shape).__repr__())
    for k in range(100):
        h = torch.relu(X @ W1 + b1)
        h = torch.relu(h @ W2 + b2)
        scores = (h @ W3 + b3).squeeze(1)
        data_loss = torch.relu(1 - y * scores).mean()
        reg_loss = 1e-4 * sum((p * p).sum() for p in params)
        total_loss = data_loss + reg_loss
        accuracy = ((scores > 0) == (y > 0)).double().mean()
        for p in params:
            p.grad = None
        total_loss.backward()
        learning_rate = 1.0 - 0.9 * k / 100
        with torch.no_grad():
            for p in params:
                p -= learning_rate * p.grad
        if k % 10 == 0 or k == 99:
            print("step", k, "loss", num(round(total_loss.item(), 6)), "accuracy",
                  num(accuracy.item() * 100), "%")


if __name__ == "__main__":
    main()
