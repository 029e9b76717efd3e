# Shape errors read as PyTorch's: the sentences of broadcasting, matmul, mm,
# bmm and nn.Linear, printed from except clauses.
import torch
import torch.nn as nn
torch.manual_seed(0)
l = nn.Linear(3, 4)
try:
    torch.ones(2,3) + torch.ones(4)
except RuntimeError as e:
    print(e)
try:
    torch.ones(5,2,3) * torch.ones(4,1)
except RuntimeError as e:
    print(e)
try:
    torch.ones(2,3) @ torch.ones(2,3)
except RuntimeError as e:
    print(e)
try:
    torch.ones(3) @ torch.ones(2,3)
except RuntimeError as e:
    print(e)
try:
    torch.ones(2,3) @ torch.ones(2)
except RuntimeError as e:
    print(e)
try:
    torch.ones(3) @ torch.ones(2)
except RuntimeError as e:
    print(e)
try:
    torch.ones(4,2,3) @ torch.ones(4,2,3)
except RuntimeError as e:
    print(e)
try:
    torch.ones(2,3).mm(torch.ones(2,3))
except RuntimeError as e:
    print(e)
l = nn.Linear(3, 4)
try:
    l(torch.ones(2, 5))
except RuntimeError as e:
    print(e)
try:
    l(torch.ones(5))
except RuntimeError as e:
    print(e)
try:
    torch.ones(2,3) - torch.ones(3,2)
except RuntimeError as e:
    print(e)
for shape in [(-1, 5), (5, 3), (2, -1, 7)]:
    try:
        torch.arange(12).view(*shape)
    except RuntimeError as e:
        print(e)
try:
    torch.ones(2, 3).reshape(4, 2)
except RuntimeError as e:
    print(e)
