import torch
x = torch.tensor([1.0])
print(x.to("cpu"), x.cpu())
print(x.to("cuda"))
