# del xs[a:b:c]: the items the slice names go (negative steps too); a tuple's
# is CPython's TypeError.
def show(xs):
    print(xs)
xs = list(range(7)); del xs[1:3]; show(xs)
xs = list(range(7)); del xs[::2]; show(xs)
xs = list(range(7)); del xs[::-1]; show(xs)
xs = list(range(7)); del xs[5:1:-2]; show(xs)
xs = list(range(7)); del xs[-2:]; show(xs)
xs = list(range(7)); del xs[3:1]; show(xs)
xs = list(range(7)); del xs[::-3]; show(xs)
xs = list(range(7)); del xs[8:]; show(xs)
xs = list(range(10))
del xs[2:5]
print(xs)
del xs[::3]
print(xs)
del xs[::-2]
print(xs)
del xs[:]
print(xs)
t = (1, 2)
try:
    del t[0:1]
except TypeError as e:
    print("TypeError", e)
