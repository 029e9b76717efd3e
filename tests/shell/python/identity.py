# is and id: objects by identity (instances, classes, functions, dicts,
# lists, tensors), small values by value.
import torch
class A:
    def f(self):
        return 1
a, b = A(), A()
print(a is a, a is b, a is not b, id(a) == id(a), id(a) == id(b))
m = a.f
print(m is m, A is A, A is type(a), a.f is a.f)
def g():
    pass
h = g
print(h is g, id(h) == id(g), len({id(a), id(b), id(a)}))
d = {}
e = d
print(d is e, d is {}, [] is [], None is None)
t = torch.tensor([1.0])
u = t
print(t is u, t is torch.tensor([1.0]), print is print)
seen = set()
for obj in [a, b, a, a, b]:
    seen.add(id(obj))
print(len(seen))
