# Source: Dive into Deep Learning, 2.4 "Calculus" (PyTorch tab): the
#   numerical limit of (f(x+h) - f(x)) / h, as in d2l 0.17 and as in d2l 1.0
#   https://d2l.ai/chapter_preliminaries/calculus.html
#   https://github.com/d2l-ai/d2l-en/blob/master/chapter_preliminaries/calculus.md
#   (code MIT-0, text CC BY-SA 4.0)
# Changed: the plotting helpers (use_svg_display, set_figsize, set_axes,
#   plot) dropped; in the d2l 1.0 loop np.arange became torch.arange, so h
#   is a 0-d tensor formatted with :.5f.

import torch

# d2l 0.17
def f(x):
    return 3 * x ** 2 - 4 * x

def numerical_lim(f, x, h):
    return (f(x + h) - f(x)) / h

h = 0.1
for i in range(5):
    print(f'h={h:.5f}, numerical limit={numerical_lim(f, 1, h):.5f}')
    h *= 0.1

# d2l 1.0
def f(x):
    return 3 * x ** 2 - 4 * x

for h in 10.0**torch.arange(-1, -6, -1):
    print(f'h={h:.5f}, numerical limit={(f(1+h)-f(1))/h:.5f}')
