# Source: Dive into Deep Learning, 5.4 "Numerical Stability and
#   Initialization", "Vanishing Gradients" (PyTorch tab),
#   https://d2l.ai/chapter_multilayer-perceptrons/numerical-stability-and-init.html
#   https://github.com/d2l-ai/d2l-en/blob/master/chapter_multilayer-perceptrons/numerical-stability-and-init.md
#   (code MIT-0)
# Changed: `from d2l import torch as d2l` dropped; d2l.plot(x, [y, grad],
#   legend=[...]) -> prints of each curve under its legend; the "Exploding
#   Gradients" cell (a product of torch.normal matrices: random) dropped.

import torch

x = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
y = torch.sigmoid(x)
y.backward(torch.ones_like(x))

for label, curve in zip(['sigmoid', 'gradient'], [y.detach(), x.grad]):
    print(label, curve)
