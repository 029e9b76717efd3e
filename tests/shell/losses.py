r"""PyTorch 1.13's printing of every value tests/shell/losses.sh prints, in
the same order (float64), to check losses.out against PyTorch: the
numbers of the two agree, and only the framing differs (grad_fn names,
"x.grad = "). Not run by make test (it needs PyTorch); from the
repository's top:

    num='-?[0-9]+\.[0-9]*(e[-+][0-9]+)?'
    /usr/bin/python3 tests/shell/losses.py | grep -oE -- "$num" > /tmp/torch.txt
    sed '/^--- PyTorch spellings/q' tests/shell/losses.out | grep -v '^\[exit\|^---' |
        grep -oE -- "$num" | diff /tmp/torch.txt - && echo same
"""
import warnings

import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
warnings.simplefilter("ignore")  # kl_div's 'mean', mse's broadcasting
T = torch.tensor


def leaf(v):
    return T(v, requires_grad=True)


def grads(*ts):
    for t in ts:
        print(t.grad)
        t.grad = None


def xt():
    return leaf([[0.2, 0.7, 0.4], [0.9, 0.5, 0.1]]), leaf([[0., 1., 0.5], [1., 0.5, 0.]])


def z():
    return leaf([[1.5, -0.3, 0.8], [-2., 0.4, 3.]])


x, t = xt()
print(F.mse_loss(x, t))
print(F.mse_loss(x, t, reduction='sum'))
print(F.mse_loss(x, t, reduction='none'))
print(F.mse_loss(x, T([0., 1., 0.5])))
F.mse_loss(x, t).backward()
grads(x, t)

x, t = xt()
print(F.l1_loss(x, t))
print(F.l1_loss(x, t, reduction='none'))
F.l1_loss(x, t, reduction='sum').backward()
grads(x, t)

x, t = xt()
print(F.smooth_l1_loss(x, t))
print(F.smooth_l1_loss(x, t, beta=0.25, reduction='none'))
print(F.huber_loss(x, t, delta=0.25))
print(F.huber_loss(x, t, 'sum', 0.25))
F.smooth_l1_loss(x, t, reduction='sum', beta=0.25).backward()
grads(x, t)
F.huber_loss(x, t, delta=0.25).backward()
grads(x, t)

x, t = xt()
print(F.binary_cross_entropy(x, t))
print(F.binary_cross_entropy(x, t, T([1., 2., 0.5]), reduction='none'))
print(F.binary_cross_entropy(T([0., 1.]), T([1., 0.])))
F.binary_cross_entropy(x, t, weight=T([1., 2., 0.5])).backward()
grads(x, t)

zz, t = z(), xt()[1]
print(F.binary_cross_entropy_with_logits(zz, t))
print(F.binary_cross_entropy_with_logits(zz, t, pos_weight=T([2., 1., 0.5]), reduction='none'))
print(F.binary_cross_entropy_with_logits(T([800., -800.]), T([0., 1.]), reduction='sum'))
F.binary_cross_entropy_with_logits(zz, t, T([[1.], [0.5]]), pos_weight=T([2., 1., 0.5])).backward()
grads(zz, t)

zz = z()
print(F.nll_loss(F.log_softmax(zz, 1), T([2, 0])))
print(F.nll_loss(F.log_softmax(zz, 1), T([2, 0]), reduction='none'))
print(F.cross_entropy(zz, T([2, 0]), reduction='sum'))
print(F.cross_entropy(T([0.5, 1., 2.]), T(1)))
F.cross_entropy(zz, T([2, 0])).backward()
grads(zz)

lp, q = leaf([[-1.2, -0.4, -2.3], [-0.1, -3., -2.5]]), leaf([[0.3, 0.5, 0.2], [0.6, 0.1, 0.3]])
print(F.kl_div(lp, q))
print(F.kl_div(lp, q, reduction='batchmean'))
print(F.kl_div(lp, torch.log(q), reduction='none', log_target=True))
print(torch.kl_div(lp, q, reduction=2))  # torch.kl_div takes the enum: 2 is 'sum'
F.kl_div(lp, q, reduction='batchmean').backward()
grads(lp, q)

h, y = leaf([0.3, 2., 0.2, -0.5]), T([1., -1., -1., 1.])
print(F.hinge_embedding_loss(h, y))
print(F.hinge_embedding_loss(h, y, margin=0.5, reduction='none'))
F.hinge_embedding_loss(h, y, 0.5).backward()
grads(h)

a, b = leaf([[1., 0., 2.], [0.5, -1., 1.]]), leaf([[0.5, 1., 1.], [-1., 2., 0.5]])
print(F.cosine_embedding_loss(a, b, T([1., -1.])))
print(F.cosine_embedding_loss(a, b, T([-1., -1.]), margin=-0.5, reduction='none'))
print(F.cosine_embedding_loss(T([1., 0.]), T([1., 1.]), T(1.)))
F.cosine_embedding_loss(a, b, T([1., -1.]), margin=-0.5).backward()
grads(a, b)

a, p, n = leaf([[1., 0.], [0., 2.]]), leaf([[1., 2.], [0.5, 1.5]]), leaf([[3., 1.], [0., 2.5]])
print(F.triplet_margin_loss(a, p, n))
print(F.triplet_margin_loss(a, p, n, margin=0.5, p=1, reduction='none'))
print(F.triplet_margin_loss(a, p, n, swap=True, eps=0))
F.triplet_margin_loss(a, p, n, reduction='sum').backward()
grads(a, p, n)
