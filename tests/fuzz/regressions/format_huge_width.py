# Source: Dive into Deep Learning, 12.7 "Adagrad" (PyTorch tab), the 2-D
#   example, https://d2l.ai/chapter_optimization/adagrad.html
#   https://github.com/d2l-ai/d2l-en/blob/master/chapter_optimization/adagrad.md
#   (code MIT-0)
# Changed: `from d2l import torch as d2l` dropped and d2l.train_2d /
#   d2l.show_trace_2d defined in the file (show_trace_2d prints every fifth
#   point); the from-scratch and concise parts (airfoil data set,
#   d2l.train_ch11) dropped.

import math
import torch


# d2l.train_2d and d2l.show_trace_2d, as saved in 12.3 "Gradient Descent"
# (show_trace_2d prints every fifth point instead of plotting)
def train_2d(trainer, steps=20, f_grad=None):  #@save
    """Optimize a 2D objective function with a customized trainer."""
    # `s1` and `s2` are internal state variables that will be used in Momentum, adagrad, RMSProp
    x1, x2, s1, s2 = -5, -2, 0, 0
    results = [(x1, x2)]
    for i in range(steps):
        if f_grad:
            x1, x2, s1, s2 = trainer(x1, x2, s1, s2, f_grad)
        else:
            x1, x2, s1, s2 = trainer(x1, x2, s1, s2)
        results.append((x1, x2))
    print(f'epoch {i + 1}, x1: {float(x1):f}, x2: {float(x2):f}')
    return results

def show_trace_2d(f, results):  #@save
    """Show the trace of 2D variables during optimization."""
    for x1, x2 in results[::5]:
        print(f'  x1 {float(x1):97777777777.5f}  x2 {float(x2):9.5f}  f {float(f(x1, x2)):10.5f}')


def adagrad_2d(x1, x2, s1, s2):
    eps = 1e-6
    g1, g2 = 0.2 * x1, 4 * x2
    s1 += g1 ** 2
    s2 += g2 ** 2
    x1 -= eta / math.sqrt(s1 + eps) * g1
    x2 -= eta / math.sqrt(s2 + eps) * g2
    return x1, x2, s1, s2

def f_2d(x1, x2):
    return 0.1 * x1 ** 2 + 2 * x2 ** 2

eta = 0.4
show_trace_2d(f_2d, train_2d(adagrad_2d))

eta = 2
show_trace_2d(f_2d, train_2d(adagrad_2d))
