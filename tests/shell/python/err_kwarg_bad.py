def f(x):
    return x
f(z=1)
