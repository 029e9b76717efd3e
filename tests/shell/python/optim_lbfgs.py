# torch.optim.LBFGS with a closure: PyTorch's algorithm (a fixed step, and
# the strong Wolfe line search), its numbers to the last bit, printed with
# repr each step. history_size is small so that the history wraps.
import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim import LBFGS


def rosenbrock(x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


for ls in [None, 'strong_wolfe']:
    x = torch.tensor([-1.5, 2.0], requires_grad=True)
    opt = torch.optim.LBFGS([x], lr=1, max_iter=5, history_size=3, line_search_fn=ls)

    def closure():
        opt.zero_grad()
        loss = rosenbrock(x)
        loss.backward()
        return loss

    for i in range(8):
        loss = opt.step(closure)
        print(i, repr(loss.item()), repr(x[0].item()), repr(x[1].item()))
    state = opt.state[x]
    print(ls, state['func_evals'], state['n_iter'], len(state['old_dirs']), repr(float(state['t'])))
print(loss)

# least squares with an nn.Linear of 24 parameters: model.parameters()
torch.manual_seed(0)
X = torch.randn(20, 5)
Y = X @ torch.randn(5, 4) + 0.1 * torch.randn(20, 4)
for ls in [None, 'strong_wolfe']:
    torch.manual_seed(1)
    model = nn.Linear(5, 4)
    opt = optim.LBFGS(model.parameters(), lr=0.5, max_iter=7, history_size=2, line_search_fn=ls)

    def closure():
        opt.zero_grad()
        loss = ((model(X) - Y) ** 2).mean()
        loss.backward()
        return loss

    for i in range(4):
        loss = opt.step(closure)
        print(i, repr(loss.item()), [repr(w) for w in model.weight[0].tolist()],
              repr(model.bias[3].item()))
    state = opt.state[model.weight]
    print(ls, state['func_evals'], state['n_iter'], len(state['old_dirs']))

# the defaults, the printed group, an optimum reached at once (the closure's
# loss comes back at the first evaluation), a parameter without a gradient
w = torch.tensor([1.0, 1.0], requires_grad=True)
unused = torch.tensor([3.0], requires_grad=True)
opt = LBFGS([w, unused], tolerance_change=1e-12)
print(opt)
print(opt.param_groups[0]['max_eval'], opt.param_groups[0]['params'][1] is unused)


def closure():
    opt.zero_grad()
    loss = rosenbrock(w)
    loss.backward()
    return loss


print(opt.step(closure), w, unused, opt.state[w]['func_evals'], opt.state[w]['n_iter'])
with torch.no_grad():
    w.copy_(torch.tensor([0.5, 0.5]))
for i in range(3):
    print(repr(opt.step(closure).item()), w.tolist(), unused.tolist(), opt.state[w]['func_evals'])
