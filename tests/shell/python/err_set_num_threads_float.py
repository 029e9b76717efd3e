# torch.set_num_threads takes an int, not a float: PyTorch's RuntimeError.
import torch
torch.set_num_threads(1.5)
