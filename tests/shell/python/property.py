# @property with a setter, on plain classes and nn.Module subclasses, and a
# descriptor of one's own with __set_name__, as CPython runs them.
import torch


class Celsius:
    def __init__(self, t=0.0):
        self.temperature = t

    @property
    def temperature(self):
        print("getting")
        return self._t

    @temperature.setter
    def temperature(self, value):
        print("setting", value)
        if value < -273.15:
            raise ValueError("below absolute zero")
        self._t = value

    @property
    def fahrenheit(self):
        return self._t * 1.8 + 32


c = Celsius(25)
print(c.temperature, c.fahrenheit)
c.temperature += 5
print(c.temperature)
try:
    c.temperature = -300
except ValueError as e:
    print("ValueError:", e)
try:
    c.fahrenheit = 3
except AttributeError as e:
    print("AttributeError:", e)
print(isinstance(Celsius.temperature, property), type(Celsius.fahrenheit).__name__)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 1)

    @property
    def num_params(self):
        return sum(p.numel() for p in self.parameters())

    def forward(self, x):
        return self.lin(x)


m = Model()
print(m.num_params)


class Squares:
    def __init__(self, n):
        self.n = n

    @property
    def values(self):
        return [i * i for i in range(self.n)]


print(Squares(4).values, len(Squares(3).values))


class Desc:
    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        return "desc " + self.name + " of " + type(obj).__name__


class Holder:
    field = Desc()


print(Holder().field)
