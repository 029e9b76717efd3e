import torch
print("before")
print(torch.tensor([[1, 2]]) @ torch.tensor([[1.0], [2.0]]))
