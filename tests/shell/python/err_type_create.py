# A type no builtin makes cannot be called: CPython's TypeError.
def f(): pass
kind = type(len)
print(kind.__name__)
kind()
