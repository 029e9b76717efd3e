"""PyTorch 1.13 (float64) side of examples/iris_softmax.ag: softmax
regression on Fisher's iris with cross_entropy and Adam, then the same
model with its loss written by hand (log_softmax and indexing).

    /usr/bin/python3 examples/reference/iris_softmax.py   (from the repository root)

Prints what the .ag prints: its `# expect:` lines.
"""
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)


def num(v):
    """A number as ag prints it: Python's repr, without ".0" when whole."""
    return str(int(v)) if v == int(v) and abs(v) < 1e16 else repr(v)


rows = open("examples/data/iris.csv").read().split("\n")[1:]
data = torch.tensor([[float(v) for v in r.split(",")] for r in rows if r])
X = data[:, :4]
y = data[:, 4]
X = (X - X.mean(0)) / X.std(0)
print(tuple(X.shape))
N = len(y)

for by_hand in (False, True):
    W = torch.zeros(4, 3, requires_grad=True)
    b = torch.zeros(3, requires_grad=True)
    opt = torch.optim.Adam([W, b], lr=0.1)
    for epoch in range(100):
        logits = X @ W + b
        if by_hand:
            loss = -F.log_softmax(logits, 1)[torch.arange(N), y.long()].mean()
        else:
            loss = F.cross_entropy(logits, y.long())
        opt.zero_grad()
        loss.backward()
        opt.step()
        if epoch % 20 == 19:
            print("epoch", epoch, "loss", num(round(loss.item(), 6)))
    with torch.no_grad():
        logits = X @ W + b
    accuracy = (logits.argmax(1) == y).double().mean()
    print("accuracy", num(round(accuracy.item(), 4)))
    print(str(W.grad).replace("Backward0>", "Backward>"))
