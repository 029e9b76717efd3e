# torch.utils.data: TensorDataset, a Dataset subclass, DataLoader with
# PyTorch 1.13's draws (a base seed per pass, RandomSampler's seed and
# randperm), so that the random numbers drawn after them match too.
import torch
from torch.utils import data
from torch.utils.data import TensorDataset, DataLoader, Dataset
import torch.utils.data as tud

torch.manual_seed(0)
X = torch.arange(20.0).reshape(10, 2)
y = torch.arange(10.0) * 0.5
ds = TensorDataset(X, y)
print(len(ds), ds[3], len(ds.tensors), ds[-1][1])

loader = DataLoader(ds, batch_size=4, shuffle=True)
print(len(loader))
for epoch in range(3):
    for xb, yb in loader:
        print(epoch, xb.shape, yb)
    print(torch.rand(2))

first = next(iter(loader))
print(type(first).__name__, len(first), first[1])
print(torch.randn(3))
it = iter(loader)
print(next(it)[1], next(it)[1], next(it)[1])
print(next(it, 'done'))

dl = data.DataLoader(ds, batch_size=3, shuffle=True, drop_last=True)
print(len(dl), [b[1] for b in dl])
print(len(data.DataLoader(ds, batch_size=3)), len(data.DataLoader(ds, batch_size=5, drop_last=True)))

g = torch.Generator().manual_seed(7)
dg = tud.DataLoader(ds, batch_size=5, shuffle=True, generator=g)
print([b[1] for b in dg], [b[1] for b in dg])
print(torch.rand(1))

plain = torch.utils.data.DataLoader(ds, batch_size=4)
print([b[1] for b in plain], torch.rand(1))

class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor([float(i), float(i * i)]), i / 2

sq = Squares(7)
for xb, half in DataLoader(sq, batch_size=3, shuffle=True):
    print(xb, half)
print(torch.rand(1))

class Pairs(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return {'x': torch.ones(2) * i, 'w': [i * 1.5, -1.0]}

for batch in DataLoader(Pairs(), batch_size=3):
    print(sorted(batch.keys()), batch['x'], batch['w'])

for item in DataLoader(ds, batch_size=None):
    print(item)
    break

a, b = data.random_split(ds, [7, 3])
print(len(a), len(b), a[0], b[2][1])
parts = data.random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(42))
print([len(p) for p in parts], [p[0] for p in parts])
print(torch.rand(1))

rs = data.RandomSampler(range(5), replacement=True, num_samples=40)
print(len(rs), list(rs)[:12])
print(list(data.BatchSampler(data.SequentialSampler(range(7)), batch_size=3, drop_last=False)))
print(torch.rand(1))
