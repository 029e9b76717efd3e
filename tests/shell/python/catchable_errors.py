# What a .py file can catch and go on from, as in CPython: attributes a
# float, str, list or dict does not have (AttributeError), super() of a
# class with no base (object's __init__ and __setattr__), and the blanks
# Python allows: a backslash joining lines, tabs between tokens.
x = 2.0
for obj in (x, 3, "ab", [1], {"k": 1}, None):
    try:
        obj.val
    except AttributeError as e:
        print("caught:", e)
print(hasattr(x, "val"), getattr([], "val", 5), x.real, x.imag, (3).real, (7).imag, True.real)
class A(object):
    def __init__(self):
        super().__init__()
        super().__setattr__("v", 1)
class B:
    def __init__(self, w):
        super().__init__()
        self.w = w
print(A().v, B(2).w)
try:
    super_of_object = B(3)
    class C:
        def m(self):
            return super().missing()
    C().m()
except AttributeError as e:
    print("caught:", e)
total = 1 + \
    2 + \
        3
if total > 5 and \
   total < 7:
    print("total", total)
values = [1,	2,
	3]
print(values, (4 +	5))
