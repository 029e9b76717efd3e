import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)

# h += 1 writes h in place: its history is rebased onto AddBackward0
h = x * w
a = h * 3          # recorded before the write: its gradient goes to the old h's MulBackward0
other = h          # another holder of h sees the new values
h += 1
print(h, other, h is other, h._version, h.is_leaf)
(h.sum() + a.sum()).backward()
print(x.grad, w.grad)

# add_ sub_ mul_ div_, by numbers and by tensors that require grad
x.grad = None
w.grad = None
h = x * 2
h.add_(w)
h.sub_(1)
h.mul_(w)
h.div_(x)
print(h, h.grad_fn.name(), h._version)
h.sum().backward()
print(x.grad, w.grad)

# the operators
x.grad = None
w.grad = None
h = x * w
h -= x
h *= w
h /= 2
h += h
h *= x
print(h)
h.sum().backward()
print(x.grad, w.grad)

# unary in-place methods
x.grad = None
h = x * w
h.exp_()
print(h.grad_fn.name())
g = x - 2.0
g.relu_()
k = x * 0.5
k.sigmoid_()
(h.sum() + g.sum() + k.sum()).backward()
print(x.grad)

# retain_graph and torch.autograd.grad through a rebased graph
h = x * x
h += 1
h.mul_(3)
y = h.sum()
gx, = torch.autograd.grad(y, x, retain_graph=True)
print(gx)
x.grad = None
y.backward()
print(x.grad)

# in a loop, as a running sum
x.grad = None
acc = x * 0
for i in range(4):
    acc += x * i
print(acc)
acc.sum().backward()
print(x.grad)

# no_grad: written, nothing recorded
h = x * 2
with torch.no_grad():
    h += 1
print(h, h.grad_fn.name())
