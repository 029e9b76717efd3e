import torch
import functools
import itertools
a, *b, c = [1, 2, 3, 4]
for x, *r in [(1, 2, 3)]:
    print(x, r, [1, *b], (0, *r))
print("{a}-{b}".format(**{"a": 1, "b": 2}), format(3.5, ".1f"), pow(3, 2, 5))
print(functools.reduce(lambda p, q: p * q, [1, 2, 3]), list(itertools.product("ab", repeat=2)))
class V:
    def __abs__(self):
        return 5
v = V()
v.t = 1
del v.t
print(abs(v), callable(v), issubclass(V, object), hasattr(v, "t"))
w = torch.tensor([1.0, 2.0], requires_grad=True)
m = torch.nn.Linear(2, 1)
h = m.register_forward_hook(lambda mod, i, o: None)
y = m(w)
y.retain_grad()
y.sum().backward()
h.remove()
print(w.grad, y.grad, torch.unbind(w.detach()), [1, 2, 2].index(2), "a,b".rsplit(",", 1))
