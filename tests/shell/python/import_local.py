# The script's own modules: a .py file beside it, a package folder with
# __init__.py and submodules that import each other, each run once.
import mod_helpers
import mod_helpers as again
from mod_helpers import square, Counter
from mod_pkg.engine import Value
from mod_pkg import layers
import mod_pkg.engine
import mod_pkg

print(mod_helpers.NAME, square(3), Counter().incr().incr().n, again is mod_helpers)
print(mod_helpers.calls)
a = Value(2.0)
b = Value(-3.0)
c = a * b + a
c.backward()
print(c.data, a.grad, b.grad)
out = layers.Neuron(2)([1.0, 2.0])
print(out.data, layers.Value is Value, mod_pkg.engine.Value is Value, mod_pkg.VERSION)
from mod_empty.thing import VALUE
import mod_empty
print(VALUE, mod_empty.thing.VALUE)
print(mod_helpers.MODULE_NAME, __name__, mod_pkg.engine.__name__)
