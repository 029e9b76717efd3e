# Source: Dive into Deep Learning, 12.3 "Gradient Descent" (PyTorch tab),
#   https://d2l.ai/chapter_optimization/gd.html
#   https://github.com/d2l-ai/d2l-en/blob/master/chapter_optimization/gd.md
#   (code MIT-0)
# Changed: `from d2l import torch as d2l` and numpy dropped; d2l.tensor,
#   d2l.cos, d2l.sin, d2l.cosh, d2l.sinh -> torch.tensor, torch.cos, ...;
#   np.pi -> math.pi; show_trace and show_trace_2d print the trace instead
#   of plotting it (the plotting helpers' names and arguments kept); the
#   preconditioning and line-search text (no code) dropped.

import math
import torch


def f(x):  # Objective function
    return x ** 2

def f_grad(x):  # Gradient (derivative) of the objective function
    return 2 * x


def gd(eta, f_grad):
    x = 10.0
    results = [x]
    for i in range(10):
        x -= eta * f_grad(x)
        results.append(float(x))
    print(f'epoch 10, x: {x:f}')
    return results

results = gd(0.2, f_grad)


def show_trace(results, f):
    n = max(abs(min(results)), abs(max(results)))
    print(f'trace over [{-n:.4f}, {n:.4f}]:',
          ', '.join(f'({x:.4f}, {float(f(x)):.4f})' for x in results))

show_trace(results, f)

# Learning rate
show_trace(gd(0.05, f_grad), f)
show_trace(gd(1.1, f_grad), f)

# Local minima
c = torch.tensor(0.15 * math.pi)

def f(x):  # Objective function
    return x * torch.cos(c * x)

def f_grad(x):  # Gradient of the objective function
    return torch.cos(c * x) - c * x * torch.sin(c * x)

show_trace(gd(2, f_grad), f)


# Multivariate gradient descent
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


def f_2d(x1, x2):  # Objective function
    return x1 ** 2 + 2 * x2 ** 2

def f_2d_grad(x1, x2):  # Gradient of the objective function
    return (2 * x1, 4 * x2)

def gd_2d(x1, x2, s1, s2, f_grad):
    g1, g2 = f_grad(x1, x2)
    return (x1 - eta * g1, x2 - eta * g2, 0, 0)

eta = 0.1
show_trace_2d(f_2d, train_2d(gd_2d, f_grad=f_2d_grad))


# Newton's method
c = torch.tensor(0.5)

def f(x):  # Objective function
    return torch.cosh(c * x)

def f_grad(x):  # Gradient of the objective function
    return c * torch.sinh(c * x)

def f_hess(x):  # Hessian of the objective function
    return c**2 * torch.cosh(c * x)

def newton(eta=1):
    x = 10.0
    results = [x]
    for i in range(10):
        x -= eta * f_grad(x) / f_hess(x)
        results.append(float(x))
    print('epoch 10, x:', x)
    return results

show_trace(newton(), f)

c = torch.tensor(0.15 * math.pi)

def f(x):  # Objective function
    return x * torch.cos(c * x)

def f_grad(x):  # Gradient of the objective function
    return torch.cos(c * x) - c * x * torch.sin(c * x)

def f_hess(x):  # Hessian of the objective function
    return - 2 * c * torch.sin(c * x) - x * c**2 * torch.cos(c * x)

show_trace(newton(), f)
show_trace(newton(0.5), f)
