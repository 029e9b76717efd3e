# A float32 tensor to a Python float power: std::pow(float, double), as
# PyTorch's scalar loop computes it (the double exponent).
import torch
c = torch.tensor([[1048576, 1048576, -4], [-3, 4, 0.1]], dtype=torch.float32)
print((c ** (-1.6)).tolist())
print((c ** 1.3).tolist())
