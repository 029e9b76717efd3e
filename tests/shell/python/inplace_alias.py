# Shared tensors: every name, list item, parameter and attribute that holds
# a tensor sees an in-place change made through any of them.
import torch

# The loop variable: PyTorch's "for param in params: param -= lr * param.grad"
w = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([0.5], requires_grad=True)
for step in range(3):
    loss = ((w * 2 + b) ** 2).sum()
    print(step, loss.item())
    loss.backward()
    with torch.no_grad():
        for p in [w, b]:
            p -= 0.01 * p.grad
            p.grad.zero_()
print(w, b)

# A function parameter (D2L's sgd)
def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()

x = torch.tensor([3.0, -1.0], requires_grad=True)
(x * x).sum().backward()
sgd([x], 0.1, 2)
print(x, x.grad)

# An object's attribute
class Model:
    def __init__(self):
        self.weight = torch.tensor([[1.0, 2.0]], requires_grad=True)
    def parameters(self):
        return [self.weight]

m = Model()
(m.weight ** 2).sum().backward()
with torch.no_grad():
    for p in m.parameters():
        p.sub_(0.25 * p.grad)
print(m.weight)
with torch.no_grad():
    m.weight -= 1
print(m.weight, m.weight.is_leaf, m.weight.requires_grad)

# .data, detach, in-place methods and versions
v = torch.zeros(3)
alias = v
print(v.add_(1), v.mul_(2).sub_(1), v._version)
print(v.zero_(), v.fill_(3), v.clamp_(0, 1), v.exp_(), alias, v._version)
y = v.clone()
y += 1
print(v, y)
d = v.detach()
d += 1
print(v, v._version, d._version)
w2 = torch.tensor([1.0, 2.0], requires_grad=True)
w2.data -= 0.5
w2.data.mul_(2)
print(w2, w2._version, w2.data._version)
a = torch.ones(2, 3)
same = a
a[0] = torch.tensor([1.0, 2.0, 3.0])
a[1, 1:] += 5
a += torch.tensor([1.0, 1.0, 1.0])
print(same)
c = torch.tensor([1.0, 2.0])
c.copy_(torch.tensor([5.0, 6.0]))
c.requires_grad_()
print(c, c.is_leaf)
h = c * 2
h += 1
print(h)
