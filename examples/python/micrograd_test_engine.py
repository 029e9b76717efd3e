# Source: Andrej Karpathy, micrograd, test/test_engine.py: the PyTorch half
#   of each test (the same expressions as README.md's example, in torch)
#   https://github.com/karpathy/micrograd/blob/master/test/test_engine.py
#   https://github.com/karpathy/micrograd  (MIT licence)
# Changed: the micrograd half of each test (Value, a class: see
#   later/micrograd_engine_tests.py) dropped, so each assert that compared
#   the two became a print of PyTorch's numbers; the tests are called at
#   the end (pytest called them).

import torch

def test_sanity_check():

    x = torch.Tensor([-4.0]).double()
    x.requires_grad = True
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    y = h + q + q * x
    y.backward()
    xpt, ypt = x, y

    # forward pass went well
    print(ypt.data.item())
    # backward pass went well
    print(xpt.grad.item())

def test_more_ops():

    a = torch.Tensor([-4.0]).double()
    b = torch.Tensor([2.0]).double()
    a.requires_grad = True
    b.requires_grad = True
    c = a + b
    d = a * b + b**3
    c = c + c + 1
    c = c + 1 + c + (-a)
    d = d + d * 2 + (b + a).relu()
    d = d + 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g = g + 10.0 / f
    g.backward()
    apt, bpt, gpt = a, b, g

    tol = 1e-6
    # forward pass went well
    print(gpt.data.item(), f'{gpt.data.item():.4f}')
    # backward pass went well
    print(apt.grad.item(), f'{apt.grad.item():.4f}')
    print(bpt.grad.item(), f'{bpt.grad.item():.4f}')

test_sanity_check()
test_more_ops()
