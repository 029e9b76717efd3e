# The device idioms of PyTorch scripts: torch.cuda.is_available() (False:
# ag computes on the CPU), torch.backends.mps, torch.cuda.manual_seed,
# x.device (cpu), .to(device) and device= on the CPU
import torch
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
print(device, torch.cuda.device_count(), torch.backends.mps.is_available())
torch.manual_seed(0)
torch.cuda.manual_seed(0)
torch.cuda.manual_seed_all(0)
x = torch.randn(2, 3).to(device)
print(x, x.device)
dev = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
print(dev, torch.ones(2, device=dev))
