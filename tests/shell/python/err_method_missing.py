# A method a value does not have is AttributeError in a .py file, for any
# value (it was "an int has no method 'to'", with no exception type).
import torch
print(torch.tensor([1.]).sum().float())
print((-1).to(torch.bool))
