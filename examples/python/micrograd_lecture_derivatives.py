# Source: Andrej Karpathy, "The spelled-out intro to neural networks and
#   backpropagation: building micrograd" (Neural Networks: Zero to Hero,
#   lecture 1): lectures/micrograd/micrograd_lecture_first_half_roughly.ipynb
#   (derivatives by nudging inputs) and
#   lectures/micrograd/micrograd_lecture_second_half_roughly.ipynb (the same
#   neuron in PyTorch)
#   https://github.com/karpathy/nn-zero-to-hero/tree/master/lectures/micrograd
#   https://www.youtube.com/watch?v=VMj-3S1tku0  (MIT licence)
# Changed: the cells that use no class, run as one script; each displayed
#   value (a cell's last expression) printed with print(); numpy,
#   matplotlib and the plot of f dropped.  The Value class and the cells
#   that use it are in later/.

import math
import torch

def f(x):
  return 3*x**2 - 4*x + 5

print(f(3.0))

h = 0.000001
x = 2/3
print((f(x + h) - f(x))/h)

# let's get more complex
a = 2.0
b = -3.0
c = 10.0
d = a*b + c
print(d)

h = 0.0001

# inputs
a = 2.0
b = -3.0
c = 10.0

d1 = a*b + c
c += h
d2 = a*b + c

print('d1', d1)
print('d2', d2)
print('slope', (d2 - d1)/h)

x1 = torch.Tensor([2.0]).double()                ; x1.requires_grad = True
x2 = torch.Tensor([0.0]).double()                ; x2.requires_grad = True
w1 = torch.Tensor([-3.0]).double()               ; w1.requires_grad = True
w2 = torch.Tensor([1.0]).double()                ; w2.requires_grad = True
b = torch.Tensor([6.8813735870195432]).double()  ; b.requires_grad = True
n = x1*w1 + x2*w2 + b
o = torch.tanh(n)

print(o.data.item())
o.backward()

print('---')
print('x2', x2.grad.item())
print('w2', w2.grad.item())
print('x1', x1.grad.item())
print('w1', w1.grad.item())
