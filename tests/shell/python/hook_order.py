# Hooks run in PyTorch's order: a leaf's when its last consumer has been
# applied (PyTorch's AccumulateGrad node, above every other in the ready
# queue), ties between leaves as std::priority_queue leaves them (a stack
# of four: 0, 2, 1, 3), before the next Function's. So a leaf's hook that
# changes its gradient in place changes what the other branch receives
# when the add shared one tensor (elliotwaite's hooks tutorial).
import torch

ls = [torch.tensor(float(i), requires_grad=True) for i in range(7)]
for i, t in enumerate(ls):
    t.register_hook(lambda g, i=i: print("leaf", i, end="; "))
for n in range(1, 8):
    torch.stack(ls[:n]).sum().backward()
    print()
a, b, c = ls[:3]
(a * b * c).backward()
print()
(a * b + c * a).backward()
print()
m = a * b
m.register_hook(lambda g: print("m", end="; "))
(m * c).backward()
print()
(a * a * b).backward()
print()
torch.autograd.backward([a * b, c * 2])
print()
(a.exp() + b.exp() * (c + a)).backward()
print()

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = a * b
c.retain_grad()
d = torch.tensor(4.0, requires_grad=True)


def d_hook(grad):
    grad *= 100


d.register_hook(d_hook)
e = c + d
e.backward()
print(a.grad, b.grad, c.grad, d.grad, e.grad)
