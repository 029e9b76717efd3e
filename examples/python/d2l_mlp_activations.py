# Source: Dive into Deep Learning, "Multilayer Perceptrons", section
#   "Activation Functions" (PyTorch tab; 4.1 in d2l 0.17, 5.1 in d2l 1.0)
#   https://d2l.ai/chapter_multilayer-perceptrons/mlp.html
#   https://github.com/d2l-ai/d2l-en/blob/master/chapter_multilayer-perceptrons/mlp.md
#   (code MIT-0, text CC BY-SA 4.0)
# Changed: each d2l.plot(X, Y, xlabel, ylabel, figsize=...) became
#   print(ylabel, Y), so the plotted values are printed; otherwise as
#   published (x.grad.data.zero_() included).

import torch

x = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
y = torch.relu(x)
print('relu(x)', y.detach())

y.backward(torch.ones_like(x), retain_graph=True)
print('grad of relu', x.grad)

y = torch.sigmoid(x)
print('sigmoid(x)', y.detach())

# Clear out previous gradients
x.grad.data.zero_()
y.backward(torch.ones_like(x),retain_graph=True)
print('grad of sigmoid', x.grad)

y = torch.tanh(x)
print('tanh(x)', y.detach())

# Clear out previous gradients.
x.grad.data.zero_()
y.backward(torch.ones_like(x),retain_graph=True)
print('grad of tanh', x.grad)
