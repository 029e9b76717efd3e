# L[0] += v is L[0] = L[0].__iadd__(v): the tensor in the list changes in
# place, and every name holding it sees it.
import torch
a = torch.tensor([1, 2, 3])
L = [a, a]
L[0] += 1
print(a, L[0] is a, L[1])
L[1] *= 2
print(a)
L[0].sub_(1)
print(a, L)
d = {'w': torch.tensor([1.0, 2.0])}
w = d['w']
d['w'] -= 0.5
print(w, d['w'] is w)
c = torch.tensor([2.9426329297651375, 1.0])
M = [c]
M[0] /= 3.0
print(c)
