# Source: Dive into Deep Learning, 7.4 "Multiple Input and Multiple Output
#   Channels" (PyTorch tab)
#   https://d2l.ai/chapter_convolutional-neural-networks/channels.html
#   https://github.com/d2l-ai/d2l-en/blob/master/chapter_convolutional-neural-networks/channels.md
#   (code MIT-0, text CC BY-SA 4.0)
# Changed: the cells run as one script; each displayed value (a cell's
#   last expression) printed with print(); `from d2l import torch as d2l`
#   dropped and `d2l.corr2d` defined in the file as in 7.2; the 1x1 check's
#   two `torch.normal(0, 1, ...)` draws replaced by fixed tensors (the cell
#   only asserts that two computations agree, which holds for any values)
#   and Y1 printed after the assert.

import torch

def corr2d(X, K):  #@save
    """Compute 2D cross-correlation."""
    h, w = K.shape
    Y = torch.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i:i + h, j:j + w] * K).sum()
    return Y

def corr2d_multi_in(X, K):
    # Iterate through the 0th dimension (channel) of K first, then add them up
    return sum(corr2d(x, k) for x, k in zip(X, K))

X = torch.tensor([[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]],
               [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]])
K = torch.tensor([[[0.0, 1.0], [2.0, 3.0]], [[1.0, 2.0], [3.0, 4.0]]])

print(corr2d_multi_in(X, K))

def corr2d_multi_in_out(X, K):
    # Iterate through the 0th dimension of K, and each time, perform
    # cross-correlation operations with input X. All of the results are
    # stacked together
    return torch.stack([corr2d_multi_in(X, k) for k in K], 0)

K = torch.stack((K, K + 1, K + 2), 0)
print(K.shape)

print(corr2d_multi_in_out(X, K))

def corr2d_multi_in_out_1x1(X, K):
    c_i, h, w = X.shape
    c_o = K.shape[0]
    X = X.reshape((c_i, h * w))
    K = K.reshape((c_o, c_i))
    # Matrix multiplication in the fully connected layer
    Y = torch.matmul(K, X)
    return Y.reshape((c_o, h, w))

X = torch.arange(27.0).reshape((3, 3, 3)) / 10 - 1
K = torch.tensor([0.5, -1.0, 2.0, 0.25, 1.5, -0.75]).reshape((2, 3, 1, 1))
Y1 = corr2d_multi_in_out_1x1(X, K)
Y2 = corr2d_multi_in_out(X, K)
assert float(torch.abs(Y1 - Y2).sum()) < 1e-6
print(Y1)
