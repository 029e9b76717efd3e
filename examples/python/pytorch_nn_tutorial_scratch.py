# Source: Jeremy Howard, "What is torch.nn really?" (PyTorch Tutorials), the
#   sections "Neural net from scratch (without torch.nn)" and "Using
#   torch.nn.functional"
#   https://pytorch.org/tutorials/beginner/nn_tutorial.html
#   https://github.com/pytorch/tutorials/blob/main/beginner_source/nn_tutorial.py
#   (BSD-3-Clause, (c) PyTorch contributors)
# Changed: MNIST (50,000 images of 28x28, loaded with pathlib, requests,
#   pickle, gzip and numpy) replaced by 128 made-up 784-pixel "images" built
#   from Python lists, so that x_train[i] lights every tenth pixel starting
#   at i % 10, the label; pyplot.imshow and IPython's set_trace dropped.
#   Added torch.manual_seed(0) so that the random weights are the same on
#   each run (needs PyTorch's random stream).  accuracy()'s .float() became
#   .double() (float64 is the default dtype here).  The classes that follow
#   in the tutorial (nn.Module) are not included.

import torch
import math

torch.manual_seed(0)  # added

# added: the made-up data set in place of MNIST
x_train = [[1.0 if j % 10 == i % 10 else ((i + j) % 7) / 20 for j in range(784)]
           for i in range(128)]
y_train = [i % 10 for i in range(128)]
x_valid, y_valid = x_train[:16], y_train[:16]

x_train, y_train, x_valid, y_valid = map(
    torch.tensor, (x_train, y_train, x_valid, y_valid)
)
n, c = x_train.shape
print(x_train, y_train)
print(x_train.shape)
print(y_train.min(), y_train.max())

weights = torch.randn(784, 10) / math.sqrt(784)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)

def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)

def model(xb):
    return log_softmax(xb @ weights + bias)

bs = 64  # batch size

xb = x_train[0:bs]  # a mini-batch from x
preds = model(xb)  # predictions
preds[0], preds.shape
print(preds[0], preds.shape)

def nll(input, target):
    return -input[range(target.shape[0]), target].mean()

loss_func = nll

yb = y_train[0:bs]
print(loss_func(preds, yb))

def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).double().mean()

print(accuracy(preds, yb))

lr = 0.5  # learning rate
epochs = 2  # how many epochs to train for

for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        #         set_trace()
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)

        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()

print(loss_func(model(xb), yb), accuracy(model(xb), yb))

import torch.nn.functional as F

loss_func = F.cross_entropy

def model(xb):
    return xb @ weights + bias

print(loss_func(model(xb), yb), accuracy(model(xb), yb))
