# Source: Dive into Deep Learning, 12.6 "Momentum" (PyTorch tab): the
#   ill-conditioned problem, the momentum method, effective sample weight
#   and scalar functions,
#   https://d2l.ai/chapter_optimization/momentum.html
#   https://github.com/d2l-ai/d2l-en/blob/master/chapter_optimization/momentum.md
#   (code MIT-0)
# Changed: `from d2l import torch as d2l` dropped and d2l.train_2d /
#   d2l.show_trace_2d defined in the file (show_trace_2d prints every fifth
#   point); each d2l.plt.plot(x, y, label=L) -> print(L, y);
#   d2l.numpy(d2l.arange(n)) -> torch.arange(n); the from-scratch and
#   concise parts (airfoil data set, d2l.train_ch11) dropped.

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
        print(f'  x1 {float(x1):9.5f}  x2 {float(x2):9.5f}  f {float(f(x1, x2)):10.5f}')


# An ill-conditioned problem
eta = 0.4
def f_2d(x1, x2):
    return 0.1 * x1 ** 2 + 2 * x2 ** 2
def gd_2d(x1, x2, s1, s2):
    return (x1 - eta * 0.2 * x1, x2 - eta * 4 * x2, 0, 0)

show_trace_2d(f_2d, train_2d(gd_2d))

eta = 0.6
show_trace_2d(f_2d, train_2d(gd_2d))


# The momentum method
def momentum_2d(x1, x2, v1, v2):
    v1 = beta * v1 + 0.2 * x1
    v2 = beta * v2 + 4 * x2
    return x1 - eta * v1, x2 - eta * v2, v1, v2

eta, beta = 0.6, 0.5
show_trace_2d(f_2d, train_2d(momentum_2d))

eta, beta = 0.6, 0.25
show_trace_2d(f_2d, train_2d(momentum_2d))


# Effective sample weight
betas = [0.95, 0.9, 0.6, 0]
for beta in betas:
    x = torch.arange(40)
    print(f'beta = {beta:.2f}', beta ** x)


# Scalar functions
lambdas = [0.1, 1, 10, 19]
eta = 0.1
for lam in lambdas:
    t = torch.arange(20)
    print(f'lambda = {lam:.2f}', (1 - eta * lam) ** t)
