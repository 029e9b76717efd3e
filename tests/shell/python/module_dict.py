# nn.ModuleDict (nanoGPT's transformer = nn.ModuleDict(dict(wte=..., h=nn.ModuleList(...),
# ln_f=nn.LayerNorm(...)))), and dict(**kwargs). Expected: PyTorch's and CPython's.
import torch
import torch.nn as nn
torch.manual_seed(0)
n_embd = 8
transformer = nn.ModuleDict(dict(
    wte=nn.Embedding(10, n_embd),
    h=nn.ModuleList([nn.Linear(n_embd, n_embd) for _ in range(2)]),
    ln_f=nn.LayerNorm(n_embd),
))
print(transformer)
print(len(transformer), list(transformer.keys()), 'h' in transformer, 'x' in transformer)
x = transformer.wte(torch.tensor([[1, 2, 3]]))
for block in transformer.h:
    x = torch.tanh(block(x))
x = transformer['ln_f'](x)
print(x.shape, x[0, :, :2], sum(p.numel() for p in transformer.parameters()))
transformer['act'] = nn.ReLU()
print([k for k in transformer], [type(m).__name__ for m in transformer.values()])
for name, m in transformer.items():
    print(name, type(m).__name__)
print(nn.ModuleDict([('a', nn.Tanh()), ('b', nn.Sigmoid())]))
d = dict(a=1, b=[2, 3])
print(d, dict([("x", 1)], y=2), dict({"p": 0}, p=5), dict())
