# Source: Dive into Deep Learning, 7.5 "Pooling" (PyTorch tab), "Maximum
#   Pooling and Average Pooling" and the inputs of "Padding and Stride" and
#   "Multiple Channels"
#   https://d2l.ai/chapter_convolutional-neural-networks/pooling.html
#   https://github.com/d2l-ai/d2l-en/blob/master/chapter_convolutional-neural-networks/pooling.md
#   (code MIT-0, text CC BY-SA 4.0)
# Changed: the cells run as one script; each displayed value (a cell's
#   last expression) printed with print(); `from torch import nn`, `from
#   d2l import torch as d2l` and the nn.MaxPool2d cells (a class) dropped;
#   `dtype=torch.float32` -> `torch.float64` (see SOURCES.md).

import torch

def pool2d(X, pool_size, mode='max'):
    p_h, p_w = pool_size
    Y = torch.zeros((X.shape[0] - p_h + 1, X.shape[1] - p_w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            if mode == 'max':
                Y[i, j] = X[i: i + p_h, j: j + p_w].max()
            elif mode == 'avg':
                Y[i, j] = X[i: i + p_h, j: j + p_w].mean()
    return Y

X = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
print(pool2d(X, (2, 2)))

print(pool2d(X, (2, 2), 'avg'))

X = torch.arange(16, dtype=torch.float64).reshape((1, 1, 4, 4))
print(X)

X = torch.cat((X, X + 1), 1)
print(X)
