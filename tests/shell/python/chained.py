# Chained comparisons: each operand read once.
import torch
calls = []
def v(x):
    calls.append(x)
    return x
print(1 < v(5) < 10, calls)
x = 5
print(1 < x > 7, 0 <= x <= 5 < 6, 1 < 2 == 2, 3 in [3] == True, 1 < 3 > 2 != 2)
print("a" < "b" < "c", [1] == [1] != [2])
# the last comparison's result is the chain's as it is: a tensor of
# several elements is never asked for its truth
t = torch.tensor([1.0, 5.0, -2.0])
print(0 < 1 <= t)
print(torch.tensor(2.0) != torch.tensor(3.0) <= t)
print(1 > 2 < t)
