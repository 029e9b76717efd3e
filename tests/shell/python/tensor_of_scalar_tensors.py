# torch.tensor of 0-d tensors takes their dtype, as PyTorch infers it (a list
# of float32 metrics stays float32), promoted with Python numbers beside them.
import torch
vals = [torch.tensor(0.5, dtype=torch.float32), torch.tensor(0.25, dtype=torch.float32)]
print(torch.tensor(vals), torch.tensor([torch.tensor(1, dtype=torch.int32)]).dtype)
print(torch.tensor([vals[0], 0.1]).dtype, torch.tensor([vals[0], 1]).dtype, torch.tensor([torch.tensor(True), 2]).dtype)
print(torch.tensor([[torch.tensor(1), torch.tensor(2)]]), torch.tensor(vals, dtype=torch.float64).dtype)
print(torch.tensor([torch.tensor(2.0), torch.tensor(3)]).dtype, torch.tensor([1, 2]).dtype, torch.tensor([1.5]).dtype)
