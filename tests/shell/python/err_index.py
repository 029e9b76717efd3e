xs = [1, 2]
print(xs[2])
