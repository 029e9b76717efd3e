# Source: Dive into Deep Learning, 7.2 "Convolutions for Images" (PyTorch
#   tab), "The Cross-Correlation Operation" and "Object Edge Detection in
#   Images"
#   https://d2l.ai/chapter_convolutional-neural-networks/conv-layer.html
#   https://github.com/d2l-ai/d2l-en/blob/master/chapter_convolutional-neural-networks/conv-layer.md
#   (code MIT-0, text CC BY-SA 4.0)
# Changed: the cells run as one script; each displayed value (a cell's
#   last expression) printed with print(); `from torch import nn` and the
#   Conv2D class and "Learning a Kernel" (nn.Module, nn.LazyConv2d,
#   random initial weights) dropped.

import torch

def corr2d(X, K):  #@save
    """Compute 2D cross-correlation."""
    h, w = K.shape
    Y = torch.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i:i + h, j:j + w] * K).sum()
    return Y

X = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
K = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
print(corr2d(X, K))

X = torch.ones((6, 8))
X[:, 2:6] = 0
print(X)

K = torch.tensor([[1.0, -1.0]])

Y = corr2d(X, K)
print(Y)

print(corr2d(X.t(), K))
