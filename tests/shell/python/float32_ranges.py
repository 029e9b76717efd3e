# float32 linspace and arange are PyTorch's float32 kernels' points (linspace
# steps in float, arange in double rounded per point), not float64's rounded
import torch

print(torch.linspace(-1, 1, 12, dtype=torch.float32).tolist())
print(torch.linspace(0, 6.283185307179586, 25, dtype=torch.float32).tolist())
print(torch.linspace(8.94899401414975, 2.612518314634741, 16, dtype=torch.float32).tolist())
print(torch.arange(0, 2, 0.05, dtype=torch.float32).tolist())
print(torch.arange(-8.0, 8.0, 0.1, dtype=torch.float32)[::16].tolist())
print(torch.arange(5, -3, -0.7, dtype=torch.float32).tolist())
torch.set_default_dtype(torch.float32)
x = torch.arange(0.1, 5.3, 0.17)
print(x.dtype, x.tolist())
y = torch.linspace(-2.2, 3.1, 37, requires_grad=True)
print(y.dtype, y.tolist())
print(torch.arange(5).dtype, torch.arange(0, 5, 0.5).dtype)
torch.set_default_dtype(torch.float64)
print(torch.arange(0, 2, 0.05)[9].item(), torch.linspace(-1, 1, 12)[3].item())
