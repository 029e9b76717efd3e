"""PyTorch 1.13 (float64) side of examples/micrograd_moons.ag: micrograd's
moons demo, trained in PyTorch on ag's data and starting weights.

    /usr/bin/python3 examples/reference/micrograd_moons.py   (from the repository root)

ag's random stream is not PyTorch's, so this script runs the .ag's "data"
and "model" parts in ./ag, has it save X, y and the weights with save_csv
(exact: load_csv reads back the same doubles), and trains on them here.
It prints what the .ag prints: its `# expect:` lines (numbers as ag prints
them: whole values without ".0").
"""
import os
import subprocess
import tempfile
import torch

torch.set_default_dtype(torch.float64)
HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "micrograd_moons.ag")
AG = os.path.join(HERE, "..", "..", "ag")
NAMES = ["X", "y", "W1", "b1", "W2", "b2", "W3", "b3"]


def num(v):
    """A number as ag prints it: Python's repr, without ".0" when whole."""
    return str(int(v)) if v == int(v) and abs(v) < 1e16 else repr(v)


def ag_inputs():
    setup = open(SCRIPT).read().split("# ---- training")[0]
    with tempfile.TemporaryDirectory() as tmp:
        saves = "".join('save_csv(%s, "%s/%s.csv")\n' % (n, tmp, n) for n in NAMES)
        subprocess.run([AG, "-e", setup + saves], check=True, stdout=subprocess.DEVNULL)
        out = {}
        for n in NAMES:
            rows = [line for line in open(os.path.join(tmp, n + ".csv")).read().split("\n") if line]
            t = torch.tensor([[float(v) for v in r.split(",")] for r in rows])
            out[n] = t.reshape(-1) if n in ("y", "b1", "b2", "b3") else t
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
