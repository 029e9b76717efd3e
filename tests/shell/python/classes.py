# Classes: __init__, methods, class attributes, inheritance and super(),
# operator methods with Python's dispatch, __repr__/__str__, __call__,
# isinstance/hasattr/getattr/setattr, closures that set attributes.
class Vec:
    dims = 2

    def __init__(self, x, y=0):
        self.x = x
        self.y = y

    def __add__(self, other):
        other = other if isinstance(other, Vec) else Vec(other, other)
        return Vec(self.x + other.x, self.y + other.y)

    def __radd__(self, other):
        return self + other

    def __mul__(self, k):
        return Vec(self.x * k, self.y * k)

    def __rmul__(self, k):
        return self * k

    def __neg__(self):
        return self * -1

    def __eq__(self, other):
        return isinstance(other, Vec) and self.x == other.x and self.y == other.y

    def __repr__(self):
        return f"Vec({self.x}, {self.y})"

    def norm2(self):
        return self.x ** 2 + self.y ** 2

    @staticmethod
    def zero():
        return Vec(0, 0)


a = Vec(1, 2)
b = Vec(3)
print(a, b, a + b, 1 + a, a + 1, 2 * a, a * 2, -a, a == Vec(1, 2), a != b)
print(a.norm2(), Vec.norm2(b), Vec.dims, a.dims, Vec.zero(), str(a), repr(b), [a, b])
print(sum([a, b], Vec(0)), isinstance(a, Vec), isinstance(3, Vec), hasattr(a, "x"),
      hasattr(a, "z"), getattr(a, "z", "none"))
setattr(a, "z", 5)
print(a.z, f"{a!r} and {b}")


class Shape:
    sides = 0

    def __init__(self, name):
        self.name = name

    def describe(self):
        return f"{self.name} with {self.sides} sides"

    def __str__(self):
        return "Shape " + self.name


class Square(Shape):
    sides = 4

    def __init__(self, side):
        super().__init__("square")
        self.side = side

    def area(self):
        return self.side ** 2

    def describe(self):
        return super().describe() + f", area {self.area()}"


sq = Square(3)
print(sq.describe(), isinstance(sq, Shape), isinstance(sq, Square), sq)
print(type(sq).__name__, sq.__class__.__name__, Square.__name__)


class Counter:
    def __init__(self):
        self.count = 0
        self.history = []

    def __call__(self, step=1):
        self.count += step
        self.history.append(self.count)
        return self.count


c = Counter()
c(); c(5)
print(c(), c.history)


class Node:
    def __init__(self, data, children=()):
        self.data = data
        self.grad = 0
        self._backward = lambda: None
        self._prev = set(children)

    def __mul__(self, other):
        out = Node(self.data * other.data, (self, other))

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out


x = Node(3.0)
w = Node(-2.0)
y = x * w
y.grad = 1.0
y._backward()
print(y.data, x.grad, w.grad, len(y._prev), x in y._prev)
