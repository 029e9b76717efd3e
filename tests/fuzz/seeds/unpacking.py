import torch
pairs = [(1, 2.0), (3, 4.0)]
for i, (a, b) in enumerate(zip([1, 2], [3.0, 4.0])):
    print(i, a, b)
a, b = pairs[0]
(c, d), e = pairs[1], 5
w, *rest = [1, 2, 3]
print(a, b, c, d, e, w, rest)
