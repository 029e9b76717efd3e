# << and >> of ints (with their precedence), and every compound assignment
# Python has: //= %= **= @= <<= >>= beside += -= *= /= &= |= ^=.
print(5 >> 1, 5 << 2, -5 >> 1, -1 >> 100, 1 << 62, -(1 << 62), True << 3, 7 >> 0)
print(3 + 1 << 2, 1 << 2 + 1, 6 & 3 << 1, 1 | 1 << 3, 2 ** 3 << 1)
x = 7
x //= 2; print(x)
x %= 2; print(x)
x = 3
x **= 3; print(x)
x <<= 2; print(x)
x >>= 3; print(x)
y = 7.5
y //= 2; print(y)
y %= 2; print(y)
y **= 2; print(y)
t = torch.tensor([1.0, 2.0, 3.0]) if False else None
import torch
t = torch.tensor([1.0, 2.0, 3.0])
u = t
t **= 2; print(t, u is t)
t //= 2; print(t)
t %= 3; print(t)
m = torch.eye(2)
m @= torch.tensor([[1.0, 2.0], [3.0, 4.0]]); print(m)
class V:
    def __init__(self, v): self.v = v
    def __lshift__(self, k): return V(self.v * 2 ** k)
    def __rrshift__(self, k): return 'rr' + str(k)
print((V(3) << 2).v, 5 >> V(1))
xs = [4]
xs[0] //= 3; print(xs)
o = V(9)
o.v **= 2; print(o.v)
try:
    print(1.0 << 2)
except TypeError as e:
    print(e)
try:
    print(2 >> 1.5)
except TypeError as e:
    print(e)
