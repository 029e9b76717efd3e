# **kwargs in a def and **dict in a call, as micrograd's nn.py passes
# nonlin= from Layer to Neuron.
def f(a, b=2, **kw):
    return (a, b, kw)
print(f(1))
print(f(1, 3, x=4, y=5))
print(f(1, y=5, b=7))
d = {'b': 10, 'z': 'q'}
print(f(0, **d), d)
def g(*args, **kwargs):
    print(args, kwargs)
g()
g(1, 2, k=3)
g(**{'a': 1}, b=2)
class Neuron:
    def __init__(self, nin, nonlin=True):
        self.nin = nin
        self.nonlin = nonlin
    def __repr__(self):
        return f"{'ReLU' if self.nonlin else 'Linear'}Neuron({self.nin})"
class Layer:
    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]
    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"
print(Layer(2, 3), Layer(1, 2, nonlin=False))
def k(a, **kw):
    return kw
print(k(1, kw=3), k(a=1, b=2), k(1, **{'b': 1}, c=2))
def outer(**kw):
    return k(0, **kw)
print(outer(p=1, q=[2]))
