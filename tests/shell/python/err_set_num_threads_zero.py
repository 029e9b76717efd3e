# torch.set_num_threads(0): PyTorch's RuntimeError, on its line.
import torch
torch.set_num_threads(2)
torch.set_num_threads(0)
