# nn.Module's hooks: forward pre-hooks (may replace the arguments), forward
# hooks (may replace the output; the feature-extraction idiom), backward
# hooks (grad_input, grad_output; one that returns a value replaces the
# gradient of a module's one input), and the handles' remove().
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
features = {}


def keep(name):
    def hook(module, inputs, output):
        features[name] = output.detach()
    return hook


handles = [net[0].register_forward_hook(keep("fc1")), net[1].register_forward_hook(keep("relu"))]
x = torch.randn(2, 3)
y = net(x)
print(sorted(features), features["relu"])
print(torch.equal(features["relu"], torch.relu(features["fc1"])))
for h in handles:
    h.remove()
features.clear()
net(x)
print(features)


def double_input(module, args):
    print("pre", type(module).__name__, len(args))
    return (args[0] * 2,)


def shift_output(module, args, output):
    return output + 100


lin = nn.Linear(3, 1)
h1 = lin.register_forward_pre_hook(double_input)
h2 = lin.register_forward_hook(shift_output)
print(lin(x), lin.weight @ (2 * x).T + lin.bias + 100)
h1.remove()
print(lin(x))
h2.remove()
print(lin(x))


def show(module, grad_input, grad_output):
    print(type(module).__name__, "grad_input", grad_input, "grad_output", grad_output)


tanh = nn.Tanh()
tanh.register_full_backward_hook(show)
a = torch.tensor([0.5, -1.0], requires_grad=True)
tanh(a).sum().backward()
print(a.grad)


def scale(module, grad_input, grad_output):
    return (grad_input[0] * 10,)


sig = nn.Sigmoid()
sig.register_full_backward_hook(scale)
b = torch.tensor([0.0, 2.0], requires_grad=True)
(sig(b) * 3).sum().backward()
print(b.grad)


class Mul(nn.Module):
    def forward(self, p, q):
        return p * q


m = Mul()
m.register_backward_hook(show)
p = torch.tensor(2.0, requires_grad=True)
q = torch.tensor(3.0, requires_grad=True)
m(p, q).backward()
print(p.grad, q.grad)
with torch.no_grad():
    print(m(p, q))
