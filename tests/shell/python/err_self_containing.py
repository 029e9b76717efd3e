# Lists and dicts that hold themselves: printed as Python prints them, compared
# by identity first, and refused as tensor data (too many dimensions).
import torch
a = []
a.append(a)
print(a)
print(str(a), repr(a), len(a))
b = [1, [2, 3]]
b[1].append(b)
print(b)
d = {}
d['k'] = d
print(d)
print(a == a, a is a[0], a in a, a == [a], f"{a}", "%s" % (a,), str([a]))
print(torch.tensor([[[[[[[[1.0]]]]]]]]).shape)
t = torch.tensor(a)
