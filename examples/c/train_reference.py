#!/usr/bin/python3
"""PyTorch's figures for examples/c/train.c: the same data, model, loss and
Adam, in float64 on the CPU. Run: /usr/bin/python3 examples/c/train_reference.py"""
import torch

X = torch.tensor([[0.5, -1.2], [1.3, 0.4], [-0.7, 0.9], [2.1, -0.3],
                  [-1.5, -0.8], [0.2, 1.7], [-0.4, -2.0], [1.0, 1.1]], dtype=torch.float64)
y = torch.tensor([4.6, 1.9, -3.4, 5.2, -0.1, -4.3, 5.9, -0.8], dtype=torch.float64)
w = torch.tensor([0.0, 0.0], dtype=torch.float64, requires_grad=True)
b = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
opt = torch.optim.Adam([w, b], lr=0.05, foreach=False)
for step in range(200):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(X @ w + b, y)
    loss.backward()
    if step in (0, 1, 10, 50, 100, 199):
        print("step %3d  loss %.17g" % (step, loss.item()))
    opt.step()
print("w = [%.17g, %.17g], b = %.17g" % (w[0].item(), w[1].item(), b.item()))
