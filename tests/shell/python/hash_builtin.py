# hash(): CPython's for ints, floats, bools and tuples of them (strings are
# salted per run in CPython, so only compared), an object's __hash__, the
# identity of one without; the unhashable refused.
for v in [0, 1, -1, -2, 2**61 - 1, 2**61, -(2**61), 2**62 + 5, 9223372036854775807,
          -9223372036854775807, 0.5, -0.5, 1.0, 3.0, 1e100, -1e-300, 2.5e-310, 1.1,
          float('inf'), float('-inf'), True, False, (1, 2), (), (1.5, (2, 3)), (-1,),
          3.14159, None is None]:
    print(repr(v), hash(v))
print(hash('abc') == hash('abc'), hash('abc') == hash('abd'), hash(1) == hash(1.0) == hash(True))
print(hash((1, 2)) == hash((1.0, 2.0)), hash(('a', 1)) == hash(('a', 1)))
class K:
    def __init__(self, k): self.k = k
    def __hash__(self): return hash(self.k) + 1
print(hash(K(5)), hash(K((1, 2))) == hash((1, 2)) + 1)
class P:
    pass
p = P()
print(hash(p) == hash(p), hash(p) == id(p) >> 4, hash(p) == hash(P()))
for bad in ([1], {}, {1}, (1, [2])):
    try:
        hash(bad)
    except TypeError as e:
        print(e)
