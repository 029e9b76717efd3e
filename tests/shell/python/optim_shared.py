# Optimizers hold tensors and step them in place: a list shared with the
# optimizer, an object's attributes, a function's local tensors.
import torch

class TwoLayer:
    def __init__(self):
        self.w1 = torch.tensor([[0.5, -0.25], [0.125, 1.0]], requires_grad=True)
        self.b1 = torch.tensor([0.1, -0.1], requires_grad=True)
        self.w2 = torch.tensor([[1.5], [-0.5]], requires_grad=True)
    def parameters(self):
        return [self.w1, self.b1, self.w2]
    def __call__(self, x):
        return torch.tanh(x @ self.w1 + self.b1) @ self.w2

x = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.0, 1.0]])
y = torch.tensor([[1.0], [0.0], [-1.0]])
model = TwoLayer()
params = model.parameters()
opt = torch.optim.Adam(params, lr=0.1)
for step in range(5):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 10))
print(model.w1)
print(params[2] is model.w2, params[2])

def train_local():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    for _ in range(5):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    return w

w = torch.tensor([10.0, 20.0], requires_grad=True)
print(train_local(), w)

sgd = torch.optim.SGD([w], lr=0.5, momentum=0.9)
(w ** 2).sum().backward()
sgd.step()
print(w, w._version, w.grad)
