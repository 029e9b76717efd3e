# A loss whose target was computed from a tensor that requires grad: the
# target's graph gets no gradient (hinge_embedding_loss does not
# differentiate its target), and backward must not apply it (the fuzzer
# found ag crashing here).
import torch
import torch.nn.functional as F
w = torch.tensor([1., 2.], requires_grad=True)
x = torch.tensor([0.5, -0.2], requires_grad=True)
F.hinge_embedding_loss(x * 2, w * 1).backward()
print(x.grad, w.grad)
y = torch.tensor([1., -1., 1.], requires_grad=True)
z = torch.tensor([0.3, 0.4, -2.0], requires_grad=True)
loss = F.hinge_embedding_loss(z.exp(), y.sign() * 1, margin=2.0, reduction='sum')
loss.backward()
print(loss.item(), z.grad, y.grad)
