# Optimizer steps on float32 parameters follow PyTorch's float kernels to
# the last bit: each op rounded to float, fused multiply-adds in float,
# the hyperparameters cast to float (w.tolist() shows every bit).
import torch
O = torch.optim
configs = [
    ("SGD lr", lambda w: O.SGD([w], lr=0.01)),
    ("SGD momentum", lambda w: O.SGD([w], lr=0.1, momentum=0.9)),
    ("SGD nesterov", lambda w: O.SGD([w], lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("SGD dampening", lambda w: O.SGD([w], lr=0.05, momentum=0.5, dampening=0.3, maximize=True)),
    ("Adam", lambda w: O.Adam([w], lr=0.01)),
    ("Adam amsgrad", lambda w: O.Adam([w], lr=0.003, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True)),
    ("AdamW", lambda w: O.AdamW([w], lr=0.01)),
    ("AdamW maximize", lambda w: O.AdamW([w], lr=0.02, weight_decay=0.05, eps=1e-6, maximize=True)),
    ("RMSprop", lambda w: O.RMSprop([w], lr=0.01)),
    ("RMSprop centered", lambda w: O.RMSprop([w], lr=0.01, alpha=0.9, momentum=0.8, centered=True,
                                             weight_decay=0.01)),
    ("Adagrad", lambda w: O.Adagrad([w], lr=0.1)),
    ("Adagrad decay", lambda w: O.Adagrad([w], lr=0.1, lr_decay=0.01, weight_decay=0.1,
                                          initial_accumulator_value=0.5)),
    ("Adadelta", lambda w: O.Adadelta([w])),
    ("Adadelta all", lambda w: O.Adadelta([w], lr=2.0, rho=0.7, eps=1e-4, weight_decay=0.1,
                                          maximize=True)),
]
for name, make in configs:
    torch.manual_seed(0)
    w = torch.randn(6, dtype=torch.float32, requires_grad=True)
    opt = make(w)
    for step in range(6):
        w.grad = torch.randn(6, dtype=torch.float32) * 3
        opt.step()
    print(name, w.dtype, w.tolist())
x = torch.tensor([0.0, 1.0], dtype=torch.float32)
x.add_(torch.tensor([-30.0, 0.7], dtype=torch.float32), alpha=-0.01)
print(x.tolist())
torch.manual_seed(1)
big = torch.randn(5000, dtype=torch.float32)
big.add_(torch.randn(5000, dtype=torch.float32), alpha=0.37)
print(big[::499].tolist())
w = torch.randn(5000, dtype=torch.float32, requires_grad=True)
opt = torch.optim.Adam([w], lr=0.01)
for step in range(3):
    w.grad = torch.randn(5000, dtype=torch.float32)
    opt.step()
print(w[::499].tolist())
a = torch.tensor([1.5, -2.25], dtype=torch.float32, requires_grad=True)
b = torch.tensor([0.1, 0.2], dtype=torch.float32, requires_grad=True)
torch.sub(a, b, alpha=0.3).sum().backward()
print(b.grad.tolist(), a.grad.tolist())
