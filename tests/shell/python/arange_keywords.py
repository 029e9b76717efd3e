# torch.arange takes start, end and step by keyword, in PyTorch's
# overloads (end), (start, end), (start, end, step); an int's arange is
# int64, a float's the default dtype; another combination is a TypeError.
import torch
print(torch.arange(start=0, end=5, step=1), torch.arange(end=4), torch.arange(1, end=7, step=3))
print(torch.arange(2, 8, step=2), torch.arange(start=1.5, end=3), torch.arange(0, 2, step=0.5))
print(torch.arange(start=0, end=1, step=0.25, dtype=torch.float32), torch.arange(3, dtype=torch.float64))
print(torch.arange(5), torch.arange(1, 4), torch.arange(0, 10, 3), torch.arange(end=3, requires_grad=False))
for make in [lambda: torch.arange(5, step=2), lambda: torch.arange(start=1),
             lambda: torch.arange(5, start=1), lambda: torch.arange(step=2)]:
    try:
        make()
    except TypeError:
        print("TypeError")
