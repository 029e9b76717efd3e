import torch
print("before")
print(torch.nn.functional.one_hot(torch.tensor([0.0, 1.0])))
