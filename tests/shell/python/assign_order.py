# Stores evaluate each operand once, in Python's order: for = the value,
# then the object and its index; for op= the object, the index, the item,
# then the value (lists, dicts, objects, tensors, attributes, chains)
import torch
t = torch.zeros(3)
def f():
    print("f")
    return t
def v():
    print("v")
    return 5.0
def k():
    print("k")
    return 1
f()[k()] = v()
f()[k()] += v()
d = {}
def g():
    print("g")
    return d
g()["a"] = v()
g()["a"] += v()
class A:
    pass
def h():
    print("h")
    return a
a = A()
h().x = v()
h().x += v()
print(t, d, a.x)
t = torch.zeros(3)
w = torch.ones(2)
class A:
    pass
a = A()
def v():
    print("v")
    return 7.0
def f():
    print("f")
    return t
def g():
    print("g")
    return w
a.x = t[1] = f()[2] = v()
print(a.x, t)
g().requires_grad = True
print(w.requires_grad)
g().grad = torch.ones(2)
print(w.grad)
g().data = torch.tensor([3., 4.])
print(w)
L = [1, 2, 3]
def lst():
    print("lst")
    return L
lst()[0:2] = [v(), v()]
lst()[1] += v()
print(L)
a.y = 1
def obj():
    print("obj")
    return a
obj().y += v()
obj().y *= 2
print(a.y)
