# A decorator that is not callable: Python's TypeError, on the def.
d = 3


@d
def f(x):
    return x
