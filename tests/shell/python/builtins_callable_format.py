# callable, format, issubclass, object() and isinstance(x, object),
# delattr and del obj.attr, as CPython's.
class A:
    def __call__(self):
        return 1


class B(A):
    pass


class C(object):
    def __init__(self):
        super().__init__()


print(callable(len), callable(3), callable(A()), callable(B), callable(C()), callable(print),
      callable(lambda: 0), callable("x"), callable([].append))
print(format(3.14159, ".2f"), format(42), format(7, "05d"), format(True), format("ab", ">4"),
      format(None), format([1, 2]), format(1234567.891, ",.1f"), format(0.5, "%"))
print(issubclass(bool, int), issubclass(B, A), issubclass(A, B), issubclass(B, (int, A)),
      issubclass(B, object), issubclass(int, object))
print(isinstance(3, object), isinstance(C(), object), isinstance(None, object))
_missing = object()
other = object()
print(_missing is other, _missing is _missing, type(_missing).__name__, _missing == _missing)


def get(d, key, default=_missing):
    if key in d:
        return d[key]
    if default is _missing:
        raise KeyError(key)
    return default


print(get({"a": 1}, "a"), get({}, "b", 5))
b = B()
b.x = 1
b.y = 2
delattr(b, "x")
del b.y
print(hasattr(b, "x"), hasattr(b, "y"))
B.k = 3
del B.k
print(hasattr(B, "k"))
for bad in (lambda: delattr(b, "q"), lambda: issubclass(3, int), lambda: format(3, "q")):
    try:
        bad()
    except (AttributeError, TypeError, ValueError) as e:
        print(type(e).__name__, e)
try:
    del b.z
except AttributeError as e:
    print("del:", e)
