# Matrix products to the last bit: PyTorch (Debian's, on the reference
# BLAS) sums each element in K's order, each product and sum rounded; ag
# does too, on every path of its kernel (direct, thin, blocked, K past one
# block of 256, threads), forward and backward, float64 and float32.
import torch

torch.manual_seed(0)


def show(name, t):
    flat = t.detach().flatten()
    print(name, tuple(t.shape), flat[:: max(1, flat.numel() // 7)].tolist(), flat[:9000].sum().item())


for m, k, n in [(3, 5, 4), (100, 16, 16), (70, 97, 130), (33, 600, 65), (200, 300, 9)]:
    a = torch.randn(m, k, requires_grad=True)
    b = torch.randn(k, n, requires_grad=True)
    c = a @ b
    show("mm", c)
    (c * torch.randn(m, n)).sum().backward()
    show("  grad a", a.grad)
    show("  grad b", b.grad)
    show("  f32", a.detach().float() @ b.detach().float())

v = torch.randn(300)
w = torch.randn(300, 40)
show("mv", w.t() @ v)
show("vm", v @ w)
print("dot", (v @ v).item(), (v.float() @ v.float()).item())
x3 = torch.randn(4, 30, 50)
y3 = torch.randn(4, 50, 20)
show("bmm", torch.bmm(x3, y3))
show("bmm small", torch.bmm(x3[:, :3, :5], y3[:, :5, :2]))
show("batched", x3 @ torch.randn(50, 7))
lin = torch.nn.Linear(300, 40)
show("linear", lin(torch.randn(8, 300)))
show("linear 3-d", lin(torch.randn(2, 5, 300)))
show("linear 1-d", lin(v))
