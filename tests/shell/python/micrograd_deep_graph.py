# A micrograd-style topological sort (mod_pkg/engine.py's recursive build)
# of a 10,000-node graph, 10,000 calls deep, under sys.setrecursionlimit,
# as CPython 3.11 runs it.
import sys
from mod_pkg.engine import Value
sys.setrecursionlimit(100000)
x = Value(1.0)
y = x
for i in range(10000):
    y = y + x
y.backward()
print(y.data, x.grad)
