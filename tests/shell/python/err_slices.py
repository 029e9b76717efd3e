# Python's slice objects: slice(...) and what obj[a:b] hands __getitem__,
# indexing lists, tuples, strings and tensors; nn.Sequential and nn.ModuleList
# sliced as PyTorch slices them.
import torch
import torch.nn as nn

s = slice(1, 3)
print(s, s.start, s.stop, s.step, slice(4), slice(0, 10, 2))
print([1, 2, 3, 4][s], (5, 6, 7, 8)[slice(None, None, -1)], "abcdef"[slice(1, None, 2)])
print(slice(1, 3) == slice(1, 3), slice(1, 3) == slice(1, 4))
print(slice(None, None, -1).indices(5), slice(-3, 100).indices(5), slice(2).indices(10))


class Seq:
    def __init__(self, items):
        self.items = items

    def __getitem__(self, key):
        if isinstance(key, slice):
            return Seq(self.items[key])
        return self.items[key]

    def __repr__(self):
        return "Seq(" + repr(self.items) + ")"


q = Seq([10, 20, 30, 40, 50])
print(q[1:3], q[::2], q[-2:], q[3], q[:])

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1), nn.Sigmoid())
head = model[:2]
print(type(head).__name__, len(head))
print(model[1:])
x = torch.tensor([[1.0, -2.0]])
print(head(x))
print(torch.equal(model[2:](head(x)), model(x)))
layers = nn.ModuleList([nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 2)])
print(layers[1:])
print(len(layers[::2]), type(layers[0:1]).__name__)
t = torch.arange(12).reshape(3, 4)
print(t[slice(1, 3)], t[:, slice(None, None, 2)], t[slice(2)][0])
print(slice(1, 2, 3, 4))
