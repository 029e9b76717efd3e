def f(**kw):
    return kw
print(f(x=1))
f(x=1, **{"x": 2})
