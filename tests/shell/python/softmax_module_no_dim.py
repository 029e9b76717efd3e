# nn.Softmax() and nn.LogSoftmax() without dim take PyTorch's legacy
# choice, as F.softmax(x) does: dim 0 for 0-, 1- and 3-dimensional
# inputs, dim 1 otherwise (a 2-D batch: each row).
import torch
import torch.nn as nn
x = torch.tensor([[1., 2, 3], [0, 0, 1]])
print(nn.Softmax()(x))
print(nn.LogSoftmax()(x))
print(nn.Softmax()(torch.tensor([1., 2, 3])))
print(nn.Softmax()(torch.arange(8.).reshape(2, 2, 2)))
print(nn.Softmax()(torch.arange(16.).reshape(2, 2, 2, 2))[0, 0])
print(nn.Softmax(dim=0)(x))
print(nn.Softmax())
import torch.nn.functional as F
print(F.softmax(x, dim=None))
print(F.log_softmax(torch.arange(8.).reshape(2, 2, 2))[1])
print(F.softmax(torch.arange(16.).reshape(2, 2, 2, 2))[1, 1])
