# Keyword-only parameters (after *args or a bare *; required ones too), *args with
# defaults before it, and Python's TypeErrors for each way a call can miss.
def f(a, b=1, *args): return (a, b, args)
print(f(1), f(1, 2, 3), f(b=5, a=0))
def g(a, *args, **kw): return (a, args, kw)
print(g(1), g(1, 2, x=3))
def h(x, *args, scale=2, shift): return (x, args, scale, shift)
print(h(1, shift=0), h(1, 2, 3, shift=1, scale=10), h(shift=4, x=9))
def k(a, *, key=None, reverse=False): return (a, key, reverse)
print(k(1), k(1, reverse=True), k(a=2, key=len))
def m(*, a, b, c=3, **rest): return (a, b, c, rest)
print(m(a=1, b=2), m(b=1, a=2, z=9), m(**{"a": 5, "b": 6}))
class C:
    def __init__(self, *layers, dropout=0.0):
        self.layers, self.dropout = layers, dropout
c = C(1, 2, dropout=0.5)
print(c.layers, c.dropout, C().layers)
for bad in (lambda: k(1, 2), lambda: h(1), lambda: m(a=1), lambda: m(), lambda: k(1, nope=2), lambda: f()):
    try:
        bad()
    except TypeError as e:
        print("TypeError", e)
