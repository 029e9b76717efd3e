# Source: Dive into Deep Learning, 3.1 "Linear Regression", "The Normal
#   Distribution and Squared Loss" (PyTorch tab),
#   https://d2l.ai/chapter_linear-regression/linear-regression.html
#   https://github.com/d2l-ai/d2l-en/blob/master/chapter_linear-regression/linear-regression.md
#   (code MIT-0)
# Changed: numpy and `from d2l import torch as d2l` dropped: np.exp ->
#   torch.exp, np.arange -> torch.arange; d2l.plot(x, ys, ...,
#   legend=labels) -> a loop printing each label and its curve.  The
#   "Vectorization for Speed" cells (they time loops) dropped.

import math
import torch


def normal(x, mu, sigma):
    p = 1 / math.sqrt(2 * math.pi * sigma**2)
    return p * torch.exp(-0.5 * (x - mu)**2 / sigma**2)

# Use NumPy again for visualization
x = torch.arange(-7, 7, 0.01)

# Mean and standard deviation pairs
params = [(0, 1), (0, 2), (3, 1)]
ys = [normal(x, mu, sigma) for mu, sigma in params]
legend = [f'mean {mu}, std {sigma}' for mu, sigma in params]
for y, label in zip(ys, legend):
    print(label, y)
