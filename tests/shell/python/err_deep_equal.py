# Lists nested 300,000 deep compare as Python: RecursionError, not a crash.
xs = None
for i in range(300000):
    xs = [xs]
ys = None
for i in range(300000):
    ys = [ys]
print(xs == ys)
