# A small gradient-descent loop as tutorials write it.
import torch

w = torch.tensor([0.5, -1.0], requires_grad=True)
xs = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
ys = torch.tensor([3.0, 7.0])

def loss_fn(w):
    pred = xs @ w
    return ((pred - ys) ** 2).mean()

lr = 0.01
for step in range(5):
    loss = loss_fn(w)
    loss.backward()
    with torch.no_grad():
        w = w - lr * w.grad
    w.requires_grad_()
    print(f"step {step}: loss = {loss.item():.6f}")

if __name__ == "__main__":
    print("done", w)
