# Containers compare and hash objects by their class's __eq__ and
# __hash__ (a set of them, `in`, list.index and count, dict keys); a class
# with __eq__ and no __hash__ is unhashable; an __eq__ that raises stops
# the statement, where except takes it; one that changes the dict it is
# looked up in makes the lookup start over, as CPython's.
class K:
    def __init__(self, v):
        self.v = v
    def __eq__(self, other):
        return isinstance(other, K) and self.v == other.v
    def __hash__(self):
        return hash(self.v)
    def __repr__(self):
        return f"K({self.v})"
print(len({K(1), K(1), K(2)}), K(1) in [K(1)], [K(3), K(1)].index(K(1)), {K(1): "a"}[K(1)])
d = {K(5): 1}
d[K(5)] += 1
print(d, K(2) in {K(2)}, [K(1), K(2), K(1)].count(K(1)))
class E:
    def __init__(self, v):
        self.v = v
    def __eq__(self, other):
        return self.v == getattr(other, "v", None)
try:
    {E(1)}
except TypeError as e:
    print("TypeError:", e)
print(E(1) in [E(2), E(1)], E(3) == E(3))
class Bad:
    def __eq__(self, other):
        raise ValueError("no compare")
    def __hash__(self):
        return 1
try:
    s = {Bad(), Bad()}
except ValueError as e:
    print("ValueError:", e)
class H:
    def __hash__(self):
        return 7
print(len({H(), H()}))
class Grow:
    def __init__(self, v, d):
        self.v, self.d = v, d
    def __eq__(self, other):
        self.d[len(self.d) + 100] = 0
        return isinstance(other, Grow) and self.v == other.v
    def __hash__(self):
        return 3
table = {}
table[Grow(1, table)] = "one"
print(table.get(Grow(1, table)), len(table) > 1)
