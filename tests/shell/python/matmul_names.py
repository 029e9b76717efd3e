# The grad_fn of a matrix product in each of matmul's cases: PyTorch 1.13's
# names (the last op matmul is made of), torch.bmm's own. Expected: PyTorch's.
import torch
def n(a, b):
    a = torch.ones(*a, requires_grad=True); b = torch.ones(*b)
    return (a @ b).grad_fn.name()
print(n((2,3), (3,)), n((3,), (3,2)), n((3,), (3,)), n((2,3), (3,4)))
print(n((2,2,3), (3,4)), n((2,2,3), (2,3,4)), n((2,3), (5,3,4)), n((3,), (5,3,4)), n((5,2,3), (3,)), n((1,2,3), (1,3,2)))
print(n((2,1,2,3), (5,3,4)), n((4,2,3), (3,)), torch.bmm(torch.ones(2,2,3, requires_grad=True), torch.ones(2,3,2)).grad_fn.name())
print(torch.matmul(torch.ones(2,2,3, requires_grad=True), torch.ones(2,3,2)).grad_fn.name())
