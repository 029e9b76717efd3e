# torch.bmm's batch2 of another batch size: PyTorch's RuntimeError
import torch
print(torch.bmm(torch.ones(2, 3, 4), torch.ones(2, 4, 5)).shape)
torch.bmm(torch.ones(2, 3, 4), torch.ones(3, 4, 5))
