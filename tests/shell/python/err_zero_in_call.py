def f():
    return g()
def g():
    return 1 / 0
f()
