# torch.prod and x.prod: PyTorch's order of products (vector lanes over
# chunks of 16, then one at a time; along a non-contiguous dim in order),
# its gradient with and without zeros (one, two, in some slices), the
# second derivative, int64 for integers, 1 over no elements. Expected:
# PyTorch's.
import torch
torch.manual_seed(0)
for n in [1, 5, 16, 17, 40, 100]:
    x = (torch.rand(n) * 0.4 + 0.8).requires_grad_()
    p = torch.prod(x)
    p.backward()
    print(n, p.item(), p.grad_fn.name(), x.grad[:3].tolist())
m = (torch.rand(3, 37) + 0.5).requires_grad_()
print(m.prod(1).tolist(), m.prod(0)[:4].tolist(), m.prod(dim=-1, keepdim=True).shape)
m.prod(0).sum().backward()
print(m.grad[0, :3].tolist())
z = torch.tensor([[1.5, 0.0, 2.0], [3.0, 4.0, 0.5]], requires_grad=True)
z.prod(1).sum().backward()
print(z.grad)
z1 = torch.tensor([2.0, 0.0, 3.0, 4.0], requires_grad=True)
torch.prod(z1).backward(); print(z1.grad)
z2 = torch.tensor([2.0, 0.0, 3.0, 0.0], requires_grad=True)
torch.prod(z2).backward(); print(z2.grad)
w = torch.tensor([1.5, -2.0, 0.5, 3.0], requires_grad=True)
g, = torch.autograd.grad(w.prod(), w, create_graph=True)
gg, = torch.autograd.grad(g.sum(), w)
print(g, gg)
w0 = torch.tensor([1.5, 0.0, 0.5, 3.0], requires_grad=True)
g, = torch.autograd.grad(w0.prod(), w0, create_graph=True)
gg, = torch.autograd.grad(g.sum(), w0)
print(g, gg)
print(torch.prod(torch.tensor([1, 2, 3, 4])), torch.tensor([[True, False]]).prod(1), torch.prod(torch.tensor(2.5)))
xf = torch.rand(50, dtype=torch.float32) + 0.5
print(xf.prod().item(), xf.reshape(5, 10).prod(0).tolist()[:3], torch.prod(torch.tensor([]))) 
print(torch.rand(2, 3, 4).prod(1).shape, torch.ones(2, 0).prod(1), torch.prod(torch.ones(3, 4), 0, True).shape)
