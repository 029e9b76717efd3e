# A scalar autograd engine and a small MLP written as Python classes (the
# shape of micrograd's lesson, in code of our own): operator methods with
# reflected dispatch, closures that set attributes, **kwargs passed down,
# random.uniform weights from CPython's generator, a training loop.
import math
import random


class Scalar:
    def __init__(self, data, parents=(), op=""):
        self.data = data
        self.grad = 0.0
        self.parents = list(parents)  # a list, not a set: a fixed order
        self.op = op
        self.push = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Scalar) else Scalar(other)
        out = Scalar(self.data + other.data, (self, other), "+")

        def push():
            self.grad += out.grad
            other.grad += out.grad
        out.push = push
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Scalar) else Scalar(other)
        out = Scalar(self.data * other.data, (self, other), "*")

        def push():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out.push = push
        return out

    def __pow__(self, k):
        out = Scalar(self.data ** k, (self,), f"**{k}")

        def push():
            self.grad += k * self.data ** (k - 1) * out.grad
        out.push = push
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Scalar(t, (self,), "tanh")

        def push():
            self.grad += (1 - t * t) * out.grad
        out.push = push
        return out

    def backward(self):
        order, seen = [], set()

        def visit(v):
            if id(v) not in seen:
                seen.add(id(v))
                for p in v.parents:
                    visit(p)
                order.append(v)
        visit(self)
        self.grad = 1.0
        for v in reversed(order):
            v.push()

    __radd__ = __add__
    __rmul__ = __mul__

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __repr__(self):
        return f"Scalar(data={self.data:.6f}, grad={self.grad:.6f})"


class Unit:
    def __init__(self, nin, squash=True):
        self.w = [Scalar(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Scalar(random.uniform(-1, 1))
        self.squash = squash

    def __call__(self, x):
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return act.tanh() if self.squash else act

    def params(self):
        return self.w + [self.b]


class Dense:
    def __init__(self, nin, nout, **options):
        self.units = [Unit(nin, **options) for _ in range(nout)]

    def __call__(self, x):
        out = [u(x) for u in self.units]
        return out[0] if len(out) == 1 else out

    def params(self):
        return [p for u in self.units for p in u.params()]


class Net:
    def __init__(self, nin, widths):
        sizes = [nin] + widths
        self.layers = [Dense(sizes[i], sizes[i + 1], squash=i != len(widths) - 1)
                       for i in range(len(widths))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def params(self):
        return [p for layer in self.layers for p in layer.params()]


random.seed(7)
net = Net(3, [4, 4, 1])
print(len(net.params()), net.params()[0])
xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
ys = [1.0, -1.0, -1.0, 1.0]
for step in range(12):
    preds = [net(x) for x in xs]
    loss = sum((p - y) ** 2 for p, y in zip(preds, ys))
    for p in net.params():
        p.grad = 0.0
    loss.backward()
    for p in net.params():
        p.data += -0.1 * p.grad
    print(step, loss.data)
print([p.data for p in preds])
print(net.params()[-1])
