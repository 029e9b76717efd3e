# A grad_fn prints as PyTorch's node object: its class and address (the
# address differs from run to run, so only its form is printed here); the
# same node is the same object (is, ==), another node is not.
import torch


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


def form(node):
    r = repr(node)
    at = r.index(" object at 0x")
    return r[:at], r[at + 13:-1].isalnum(), r[-1], str(node) == r, f"{node}" == r


x = torch.tensor([1.0, 2.0], requires_grad=True)
z = (x * 2).sum()
print(form(z.grad_fn))
print(form(Double.apply(x).grad_fn))
print(form((x ** 2).grad_fn), form((x[0]).grad_fn))
print(z.grad_fn is z.grad_fn, z.grad_fn == z.grad_fn, [z.grad_fn][0] is z.grad_fn)
y = x * 3
print(y.grad_fn is z.grad_fn, y.grad_fn == z.grad_fn, y.grad_fn != z.grad_fn)
print(x.grad_fn, z)
print("abcabc".index("c", 3), "abcabc".rindex("b"), [1, 2, 3, 2].index(2, 2), (1, 2, 3).index(3))
for bad in (lambda: [1, 2].index("a"), lambda: [1, 2, 1].index(1, 1, 2), lambda: "abc".index("z"),
            lambda: "abc".rindex("z")):
    try:
        bad()
    except ValueError as e:
        print("ValueError:", e)
