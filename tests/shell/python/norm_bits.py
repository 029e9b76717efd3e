# torch.norm (p = 2) to the last bit: PyTorch 1.13 adds float64 squares one
# at a time as fused multiply-adds (D2L's weight decay printed norms an ulp
# off), float32 rows in 8 fused lanes. Expected: PyTorch's.
import torch
torch.manual_seed(0)
w = torch.tensor([-0.020879472995974358, -0.7184800423600348])
print(w.norm().item(), torch.norm(w).item(), torch.linalg.norm(w).item())
for n in [3, 4, 9, 17, 100, 1000]:
    x = torch.randn(n)
    print(n, x.norm().item(), x.float().norm().item())
m = torch.randn(5, 7, 3, requires_grad=True)
print(m.norm(dim=1).flatten().tolist()[:4], m.norm(dim=2).flatten().tolist()[:4])
print(m.float().norm(dim=2).flatten().tolist()[:4], m.float().norm(dim=0).flatten().tolist()[:4], m.float().norm().item())
print(torch.nn.functional.normalize(m, dim=1).flatten().tolist()[:3])
m.norm().backward(); print(m.grad.flatten().tolist()[:3])
