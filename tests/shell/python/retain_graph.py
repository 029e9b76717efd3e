# backward with retain_graph=True: the graph stays, and a second backward
# through it accumulates again (PyTorch's autograd tutorial); the next one
# without retain_graph frees it.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = (x * x * w).sum()
y.backward(retain_graph=True)
print(x.grad, w.grad)
y.backward(retain_graph=True)
print(x.grad, w.grad)
y.backward()
print(x.grad)

# backward(gradient=...) through a retained graph, twice
x.grad = None
out = x.exp() * w
out.backward(torch.ones_like(out), retain_graph=True)
print(x.grad)
out.backward(gradient=torch.tensor([1.0, 0.0, -1.0]), retain_graph=True)
print(x.grad)

# another output of the retained graph, then a shared intermediate
h = x * x
a = (h * 3).sum()
b = (h * w).sum()
a.backward(retain_graph=True)
b.backward()
print(x.grad)

# torch.autograd.backward: several outputs at once, and inputs=
x.grad = None
w.grad = None
p = x * w
torch.autograd.backward([p.sum(), (p * p).sum()], retain_graph=True)
print(x.grad, w.grad)
torch.autograd.backward(p, grad_tensors=torch.tensor([1.0, 10.0, 100.0]), inputs=[w])
print(x.grad, w.grad)
print(x.is_leaf, p.grad_fn is not None)
