# list +=, list *=, set |= &= -= ^= and dict |= change the object itself, as
# CPython's: every name holding it sees the change (ag rebound the name).
a = [1]
b = a
a += [2]
a += (3, 4)
print(a, b, a is b)
a *= 2
print(b)
c = b
c *= 0
print(a, c)
import time
out = []
for i in range(20000):
    out += [i]
print(len(out), out[-1])
s = {1, 2}
t = s
s |= {3}
s -= {1}
print(t, s is t)
s &= {2, 5}
s ^= {7}
print(t)
d = {'a': 1}
e = d
d |= {'b': 2}
print(e)
class Box:
    def __init__(self):
        self.items = []
bx = Box()
alias = bx.items
bx.items += ['x']
print(alias)
x = [1, 2]
x += x
print(x)
tup = (1,)
tt = tup
tup += (2,)
print(tup, tt)
a = []
a *= 10**18
print(a)
b = [1]
try:
    b *= 10**18
except MemoryError:
    print("MemoryError")
