# Python's decorators: f = d(f) when the def runs, d an expression (a name,
# a call: @times(3)), stacked ones applied bottom up, on functions and
# methods, D2L's @add_to_class. Expected: CPython's.
import torch
calls = []
def trace(f):
    def wrapped(*args):
        calls.append(f.__name__)
        return f(*args)
    return wrapped
def times(k):
    def deco(f):
        return lambda x: k * f(x)
    return deco
@trace
def square(x):
    return x * x
@times(3)
@trace
def cube(x):
    return x ** 3
print(square(4), cube(2), calls)
def add_to_class(Class):
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
    return wrapper
class A:
    def __init__(self):
        self.b = 1
a = A()
@add_to_class(A)
def do(self):
    print('Class attribute "b" is', self.b)
a.do()
class B:
    @trace
    def m(self, x):
        return x + 1
    @staticmethod
    def s(x):
        return x * 10
print(B().m(1), B.s(2), calls)
@torch.no_grad()
def f(x):
    return x * 2
print(f(torch.ones(1, requires_grad=True)).requires_grad)
