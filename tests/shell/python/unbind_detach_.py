# torch.unbind and x.unbind (makemore's torch.cat(torch.unbind(emb, 1), 1)),
# UnbindBackward0 items; x.detach_() cutting a result from its graph.
import torch
x = torch.arange(6.0).reshape(2, 3).requires_grad_()
a, b = x.unbind()
c = torch.unbind(x, 1)
print(a, b, len(c), c[0], c[2].grad_fn.name())
emb = torch.randn(4, 3, 2)
print(torch.cat(torch.unbind(emb, 1), 1).shape, torch.equal(torch.cat(torch.unbind(emb, 1), 1), emb.view(4, 6)))
(a.sum() * 2 + c[1].sum()).backward()
print(x.grad)
print(torch.unbind(x, -1)[0])
y = x * 2
y.detach_()
print(y, y.requires_grad, y.is_leaf, y.grad_fn)
y.requires_grad_(True)
print(y.is_leaf, y.requires_grad)
w = torch.ones(2, requires_grad=True)
w.detach_()
print(w.requires_grad)
for bad in (lambda: torch.unbind(torch.tensor(1.0)), lambda: torch.unbind(x, 2)):
    try: bad()
    except IndexError as e: print("IndexError")
