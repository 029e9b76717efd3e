# A tensor of one integer element is an index, as PyTorch's Tensor.__index__:
# xs[t], range(t), [0] * t (which made a tensor); a float tensor is refused.
import torch
i = torch.tensor(1)
print('abc'[i], [10, 20, 30][i], (5, 6)[torch.tensor([1])])
print(list(range(torch.tensor(2))), list(range(1, torch.tensor(4))))
print([0] * torch.tensor(2), torch.tensor(3) * ['a'], 'ab' * torch.tensor(2))
for bad in [lambda: [1.5] * torch.tensor(2.0), lambda: [1, 2] * torch.tensor([2, 3]), lambda: [0][torch.tensor(0.)]]:
    try:
        bad()
    except TypeError as e:
        print("TypeError:", e)
words = ['emma', 'ava']
ix = torch.multinomial(torch.tensor([0.5, 0.5]), 1, generator=torch.Generator().manual_seed(3))
print(words[ix.item()], words[ix])
