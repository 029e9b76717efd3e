# Second derivatives in three uses: Newton's method, a Hessian checked
# against finite differences of the gradient, and a gradient penalty.
import torch

# 1. Newton's method: x <- x - f'(x) / f''(x) finds where f' is zero.
#    f''(x) is the derivative of the gradient: create_graph=True keeps the
#    gradient's own graph, so it can be differentiated again.
def f(x):
    return x ** 4 - 3 * x ** 2 + x

x = torch.tensor(1.5, requires_grad=True)
for step in range(5):
    g, = torch.autograd.grad(f(x), x, create_graph=True)
    h, = torch.autograd.grad(g, x)
    with torch.no_grad():
        x -= g / h
    print(step, f"x = {x.item():.12f}", f"f'(x) = {g.item():.3e}", f"f''(x) = {h.item():.6f}")

# 2. The Hessian of a tiny network's loss, and its check: row i of the
#    Hessian is the derivative of the gradient along parameter i, so central
#    differences of the gradient approximate it.
torch.manual_seed(0)
X = torch.randn(8, 2)
Y = torch.randn(8)

def loss_of(w):
    W1, b1, w2 = w[:4].reshape(2, 2), w[4:6], w[6:8]
    return ((torch.tanh(X @ W1 + b1) @ w2 - Y) ** 2).mean()

w = torch.randn(8)
H = torch.autograd.functional.hessian(loss_of, w)
print(H.shape, torch.allclose(H, H.T))

def gradient(w):
    w = w.detach().requires_grad_()
    g, = torch.autograd.grad(loss_of(w), w)
    return g

eps = 1e-6
worst = 0.0
for i in range(8):
    e = torch.zeros(8)
    e[i] = eps
    row = (gradient(w + e) - gradient(w - e)) / (2 * eps)
    worst = max(worst, (row - H[i]).abs().max().item())
print("largest difference from finite differences:", worst < 1e-7)

# 3. A gradient penalty: the loss adds the squared norm of its own gradient
#    with respect to the input, and training differentiates through it.
p = torch.tensor([0.5, -0.3], requires_grad=True)
xin = torch.tensor([1.0, 2.0], requires_grad=True)
out = torch.tanh(xin @ p)
gx, = torch.autograd.grad(out, xin, create_graph=True)
penalty = (gx ** 2).sum()
(out + 0.1 * penalty).backward()
print(gx, penalty)
print(p.grad)
