def f(x=1, y):
    return x
