# Python's sys module: version facts, sys.stdout and print's file= and
# flush=, sys.setrecursionlimit (within the C stack), SystemExit caught.
import sys
print(sys.version_info >= (3, 8), sys.version_info[0], sys.maxsize, type(sys.argv).__name__)
print("to stdout", file=sys.stdout, flush=True)
sys.stdout.write("written\n")
sys.stdout.writelines(["a\n", "b\n"])
print(sys.getrecursionlimit())
sys.setrecursionlimit(1500)
print(sys.getrecursionlimit())
def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)
print(depth(1200))
class Collect:
    def __init__(self): self.parts = []
    def write(self, t): self.parts.append(t)
c = Collect()
print('a', 'b', file=c)
print(1, 2.5, None, sep='', end='', file=c)
print(c.parts)
print('x', file=None)
try:
    sys.exit(3)
except SystemExit as e:
    print('caught', e.code, repr(e))
try:
    print('x', file=3)
except AttributeError as e:
    print(e)
try:
    sys.setrecursionlimit(0)
except ValueError as e:
    print(e)
# tuples order as Python's
print((3, 11) >= (3, 8), (1, 2) < (1, 2, 0), [1, 'a'] < [1, 'b'], (2,) > (1, 9), [] < [0])
print((1, (2, 3)) < (1, (2, 4)), (1.5, 2) > (1, 3), ('a', 1) < ('a', 1.5), (True, 0) >= (1, 0))
for a, b in [((1, 2), [1, 2]), ((1, 'a'), (1, 2)), ('a', 2)]:
    try:
        print(a < b)
    except TypeError as e:
        print(e)
