# An __exit__ that returns nothing lets the exception go on (it was "nothing
# cannot be a condition"); obj.__dict__ is the object's attributes, shared
# (minGPT's CfgNode: self.__dict__.update(kw)).
class C:
    def __enter__(self):
        return self

    def __exit__(self, *args):
        pass


class Cfg:
    def __init__(self, **kw):
        self.__dict__.update(kw)


c = Cfg(a=1, b=2)
print(c.a, c.b, c.__dict__, c.__dict__ is vars(c))
c.__dict__["z"] = 3
print(c.z)
try:
    with C():
        raise ValueError("boom")
except ValueError as e:
    print("ValueError", e)
with C() as m:
    raise KeyError("k")
