# A built-in value's method taken without calling it is bound to the value
# (f = (x > 0).float; f()), as CPython's builtin_function_or_method: from
# an attribute, from getattr, passed to map or kept in a list.
import torch
x = torch.tensor([-1.0, 2.0])
y = (x > 0).float
print(y(), type(y).__name__)
xs = [3, 1]
push = xs.append
push(5)
print(xs, getattr(xs, "count")(1), type(push).__name__, getattr(xs, "nope", "default"))
join = ", ".join
print(join(["p", "q"]), list(map(xs.count, [1, 3, 9])))
d = {"k": 1}
get = d.get
print(get("k"), get("z", 0))
steps = [x.sum, x.abs]
print([f() for f in steps])
try:
    xs.missing
except AttributeError as e:
    print("AttributeError:", e)
