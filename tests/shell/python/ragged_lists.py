# Lists of lists of different lengths are Python's lists (a tensor's
# literal must be rectangular: torch.tensor says where it is not).
import torch
x = [[1, 2], [3]]
print(x, len(x), [len(r) for r in x])
print([[1, 2], []], [[[1], [2, 3]]], [[1.5, 2], [3]])
y = [[0] * 3, [1] * 2]
y[1].append(9)
print(y)
print(torch.tensor([[1, 2], [3, 4]]))
t = torch.tensor([[1, 2], [3]])
