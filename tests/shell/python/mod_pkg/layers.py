# Imports its sibling as micrograd's nn.py does.
from mod_pkg.engine import Value


class Neuron:
    def __init__(self, nin):
        self.w = [Value(0.5 * (i + 1)) for i in range(nin)]
        self.b = Value(-1.0)

    def __call__(self, x):
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi
        return act
