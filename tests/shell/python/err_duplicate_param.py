def f(a, a):
    return a
