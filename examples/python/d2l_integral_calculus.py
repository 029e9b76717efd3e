# Source: Dive into Deep Learning, appendix "Mathematics for Deep
#   Learning", 22.5 "Integral Calculus" (PyTorch tab), "Geometric
#   Interpretation": the area under x / (1 + x^2) by rectangles
#   https://d2l.ai/chapter_appendix-mathematics-for-deep-learning/integral-calculus.html
#   https://github.com/d2l-ai/d2l-en/blob/master/chapter_appendix-mathematics-for-deep-learning/integral-calculus.md
#   (code MIT-0, text CC BY-SA 4.0)
# Changed: the cell's displayed value (its last expression) printed with
#   print(); the bar plot (d2l.set_figsize, d2l.plt.bar/plot/ylim/show)
#   dropped; the section's plot-only cells (exp(-x^2) filled, the 3-D
#   meshgrid) dropped.

import torch

epsilon = 0.05
a = 0
b = 2

x = torch.arange(a, b, epsilon)
f = x / (1 + x**2)

approx = torch.sum(epsilon*f)
true = torch.log(torch.tensor([5.])) / 2

print(f'approximation: {approx}, truth: {true}')
