import torch
import torch.nn.functional as F

def step(w, x, y, lr=0.1, verbose=False):
    loss = F.mse_loss(x * w, y)
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        w.grad = None
    if verbose:
        print(f"loss {loss.item():.4f}")
    return loss.item()

w = torch.tensor([0.5], requires_grad=True)
x, y = torch.tensor([1.0, 2.0]), torch.tensor([2.0, 4.0])
for k in range(3):
    step(w, x, y, verbose=k == 2)
print(step(w, x, y, lr=0.05))
