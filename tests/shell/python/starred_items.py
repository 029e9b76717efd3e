# Starred items and targets: [1, *xs], (0, *xs), a, *b, c = seq (nested, in for
# targets, of a tensor's rows), and Python's SyntaxErrors and ValueError.
a, *b, c = [1, 2, 3, 4]
print(a, b, c)
first, *rest = range(100)
print(first, len(rest), rest[-1])
*init, last = "hello"
print(init, last)
x, *y = (5,)
print(x, y)
(p, *q), r = [1, 2, 3], 4
print(p, q, r)
xs = [2, 3]
print([1, *xs], (0, *xs), [*xs, *"ab"], (*xs,))
t = 1, *xs
print(t)
import torch
h, *tl = torch.arange(4.0)
print(h, tl)
print(max(*xs, 1))
d = {"k": 1}
print([*d])
try:
    a, *b, c = [1]
except ValueError as e:
    print("ValueError", e)
for a, *b in [(1, 2, 3), "xy"]:
    print(a, b)
for (x, *y), z in [([1, 2, 3], 4)]:
    print(x, y, z)
try:
    print([*1])
except TypeError as e:
    print("TypeError", e)
