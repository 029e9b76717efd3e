# Python evaluates a method's arguments first: their error comes before
# the in-place method's refusal of a leaf that requires grad.
import torch
x = torch.tensor([1.0], requires_grad=True)
v = x
v.mul_(~torch.full((1,), 2.0))
