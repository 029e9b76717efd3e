# abs, round, int, float and bool of an object: its class's __abs__, __round__,
# __int__, __float__, __bool__ (Fluent Python's Vector); TypeError without one.
import math
class V:
    def __init__(self, x, y): self.x, self.y = x, y
    def __abs__(self): return math.hypot(self.x, self.y)
    def __bool__(self): return bool(abs(self))
    def __int__(self): return int(abs(self))
    def __float__(self): return float(abs(self))
    def __round__(self, n=None): return round(abs(self), n)
    def __neg__(self): return V(-self.x, -self.y)
    def __repr__(self): return f"V({self.x}, {self.y})"
v = V(3, 4)
print(abs(v), bool(v), bool(V(0, 0)), int(v), float(v), round(V(1, 1)), round(V(1, 1), 2), -v)
class W: pass
for bad in (lambda: abs(W()), lambda: int(W()), lambda: float(W()), lambda: round(W())):
    try: bad()
    except TypeError as e: print("TypeError")
class E:
    def __abs__(self): raise ValueError("no abs")
try: abs(E())
except ValueError as e: print("ValueError", e)
