# A format field wider than memory: CPython's MemoryError at once (ag's
# bound is 10,000,000 characters: docs/language.md), on the same line.
x = 1.5
print(f"{x:12.3f}|{'a':>5}|{'%8d' % 42}")
print(len(f"{x:97777777777.5f}"))
