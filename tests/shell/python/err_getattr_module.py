# getattr and hasattr on modules: the names module.NAME finds (a function,
# a class, a constant, a submodule), a default for one that is missing.
import math
import torch
import torch.nn as nn

f = getattr(torch, "tanh")
print(f(torch.tensor([0.5])))
print(getattr(math, "pi"), hasattr(math, "tau"), hasattr(torch, "nope"), hasattr(torch, "tanh"))
print(getattr(torch, "nope", 3), getattr(math, "sqrt")(16.0))
layer = getattr(nn, "Linear")(2, 3)
print(type(layer).__name__, layer.weight.shape)
for name in ["relu", "sigmoid", "tanh"]:
    print(name, getattr(torch, name)(torch.tensor([-1.0, 2.0])))
print(getattr(torch.nn.functional, "relu")(torch.tensor([-1.0, 2.0])))
print(getattr(torch, "float32"), getattr(torch, "nn").Linear is nn.Linear)
print(getattr(torch, "no_such_function"))
