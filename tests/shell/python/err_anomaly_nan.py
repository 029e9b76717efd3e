# Anomaly mode names the Function whose backward first made a nan: sqrt at
# 0 under a where, the classic nan (the branch not taken still gets
# 0 * inf). PyTorch's RuntimeError, on the backward's line; off, the same
# backward gives x.grad = [nan, 0.25] without a word.
import torch


def root(x):
    return torch.where(x > 0, torch.sqrt(x), torch.zeros(2))


x = torch.tensor([0.0, 4.0], requires_grad=True)
root(x).sum().backward()
print(x.grad)
x.grad = None
with torch.autograd.detect_anomaly():
    print(torch.is_anomaly_enabled())
    y = root(x).sum()
print(torch.is_anomaly_enabled())
y.backward()
print(x.grad)
torch.autograd.set_detect_anomaly(True)
y = root(x).sum()
y.backward()
print("not reached")
