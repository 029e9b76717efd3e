# Source: Dive into Deep Learning, "Implementation of Softmax Regression from
#   Scratch" (PyTorch tab, d2l 0.17: 3.6; the function-based version)
#   https://d2l.ai/chapter_linear-classification/softmax-regression-scratch.html
#   https://github.com/d2l-ai/d2l-en/blob/v0.17.6/chapter_linear-networks/softmax-regression-scratch.md
#   (code MIT-0, text CC BY-SA 4.0)
# Changed: the sections up to and including "Classification Accuracy";
#   Fashion-MNIST and the training (Accumulator, Animator, train_ch3: classes
#   and plots) dropped, so W and b are made as published but only the small
#   tensors of the text go through the functions.  The notebook's displayed
#   values printed with print().  Added torch.manual_seed(0) so that W and
#   the softmax demo's X are the same on each run (needs PyTorch's random
#   stream).  As published, accuracy() uses y_hat.type(y.dtype) and
#   float(...).

import torch

torch.manual_seed(0)  # added

num_inputs = 784
num_outputs = 10

W = torch.normal(0, 0.01, size=(num_inputs, num_outputs), requires_grad=True)
b = torch.zeros(num_outputs, requires_grad=True)

X = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print((X.sum(0, keepdim=True), X.sum(1, keepdim=True)))

def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdim=True)
    return X_exp / partition  # The broadcasting mechanism is applied here

X = torch.normal(0, 1, (2, 5))
X_prob = softmax(X)
print((X_prob, X_prob.sum(1)))

def net(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)

y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y])

def cross_entropy(y_hat, y):
    return - torch.log(y_hat[range(len(y_hat)), y])

print(cross_entropy(y_hat, y))

def accuracy(y_hat, y):  #@save
    """Compute the number of correct predictions."""
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())

print(accuracy(y_hat, y) / len(y))
