# dir() of an object or a class, sorted as CPython 3.11's: its own
# attributes, its class's and the bases', and object's; a test runner's
# discovery by name.
class A:
    x = 1
    def f(self): pass
class B(A):
    def g(self): pass
    def test_one(self): pass
    def test_two(self): pass
b = B(); b.y = 2
print(dir(b)); print(dir(B))
print([m for m in dir(b) if m.startswith("test_")])
class Empty:
    pass
print(dir(Empty()) == dir(Empty), len(dir(Empty)), "__weakref__" in dir(Empty))
runner = B()
for name in dir(runner):
    if name.startswith("test_"):
        print("running", name, getattr(runner, name)())
