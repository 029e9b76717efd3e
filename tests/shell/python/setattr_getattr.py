# A class's __setattr__ runs for each obj.NAME = v (super().__setattr__ stores),
# its __getattr__ where an attribute is not found (attribute reads, method
# calls, getattr, hasattr, which takes only AttributeError): the
# registration pattern of tinygrad-style Modules.
class Registry:
    def __init__(self):
        super().__setattr__("log", [])
    def __setattr__(self, name, value):
        self.log.append(name)
        super().__setattr__(name, value * 2 if isinstance(value, int) else value)
    def __getattr__(self, name):
        if name.startswith("auto_"):
            return name[5:]
        raise AttributeError(f"no {name}")
r = Registry()
r.a = 5
r.b = "x"
print(r.a, r.b, r.log, r.auto_thing)
try:
    r.missing
except AttributeError as e:
    print("AttributeError:", e)
print(getattr(r, "auto_z"), hasattr(r, "nope"), hasattr(r, "auto_q"))
class Proxy:
    def __init__(self, target):
        self.target = target
    def __getattr__(self, name):
        return getattr(self.target, name)
print(Proxy(Registry()).auto_k, Proxy(Registry()).log)
class Child(Registry):
    pass
c = Child()
c.n = 4
print(c.n, c.log)
class Tracked:
    def __init__(self):
        super().__setattr__("_params", {})
    def __setattr__(self, name, value):
        if isinstance(value, float):
            self._params[name] = value
        super().__setattr__(name, value)
class Layer(Tracked):
    def __init__(self):
        super().__init__()
        self.w = 0.5
        self.b = -1.0
        self.name = "dense"
layer = Layer()
print(layer._params, layer.name)
class Loud:
    def __getattr__(self, name):
        raise KeyError(name)
try:
    hasattr(Loud(), "x")
except KeyError as e:
    print("KeyError:", e)
