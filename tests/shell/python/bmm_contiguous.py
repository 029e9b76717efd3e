# torch.bmm (matmul of two 3-D tensors, BmmBackward0) and x.contiguous()
# (every ag tensor is contiguous: the tensor itself, as PyTorch returns a
# contiguous one)
import torch
a = torch.arange(24.).view(2, 3, 4).requires_grad_()
b = torch.ones(2, 4, 5, requires_grad=True)
c = torch.bmm(a, b)
print(c.grad_fn.name(), c.shape, a.bmm(b).sum())
c.sum().backward()
print(a.grad.sum(), b.grad[0, 0])
t = torch.arange(6.).view(2, 3)
print(t.transpose(0, 1).contiguous().view(-1), t.contiguous() is t)
