# double_backward (shared/bench/torch_ref.py): a gradient penalty, second-
# order autograd. The two-moons data of train_moons; MLP 2 -> 16 tanh -> 16
# tanh -> 1 with weights and biases uniform in [-1, 1); loss = mean((score -
# y)^2); grads = autograd.grad(loss, params, create_graph=True); loss + 0.1 *
# the sum of the squared gradients is backpropagated. STEPS steps; make
# bench times the whole process less an empty one, per step.
import math
import torch

STEPS = 100
g = torch.Generator().manual_seed(0)
t = torch.linspace(0, math.pi, 50)
outer = torch.stack([torch.cos(t), torch.sin(t)], 1)
inner = torch.stack([1 - torch.cos(t), 1 - torch.sin(t) - 0.5], 1)
X = torch.cat([outer, inner]) + 0.1 * torch.randn(100, 2, generator=g)
Y = torch.cat([-torch.ones(50), torch.ones(50)])
g = torch.Generator().manual_seed(1)
shapes = [(2, 16), (16,), (16, 16), (16,), (16, 1), (1,)]
params = [(torch.rand(s, generator=g) * 2 - 1).requires_grad_() for s in shapes]
W1, b1, W2, b2, W3, b3 = params
for step in range(STEPS):
    h = torch.tanh(X @ W1 + b1)
    h = torch.tanh(h @ W2 + b2)
    loss = ((h @ W3 + b3).squeeze(1) - Y).pow(2).mean()
    grads = torch.autograd.grad(loss, params, create_graph=True)
    penalty = sum((gr * gr).sum() for gr in grads)
    (loss + 0.1 * penalty).backward()
    out = [p.grad for p in params]
    for p in params:
        p.grad = None
print(float(loss), float(penalty))
