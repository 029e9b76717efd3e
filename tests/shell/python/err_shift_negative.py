# A negative shift count: CPython's ValueError, on its line.
n = 3
print(1 << n)
print(1 << -n)
