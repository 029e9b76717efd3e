# Source: Andrej Karpathy, "The spelled-out intro to language modeling:
#   building makemore" (Neural Networks: Zero to Hero, lecture 2), notebook
#   lectures/makemore/makemore_part1_bigrams.ipynb: sampling names from the
#   counts with torch.multinomial and a seeded torch.Generator
#   https://github.com/karpathy/nn-zero-to-hero/blob/master/lectures/makemore/makemore_part1_bigrams.ipynb
#   (MIT licence)
# Changed: names.txt replaced by 36 common names written in the file
#   (every letter occurs); the
#   cells run as one script, displayed values printed with print().  Needs
#   PyTorch's random stream (torch.Generator().manual_seed(2147483647),
#   torch.rand, torch.multinomial).  Each .float() became .double()
#   (float64 is the default dtype here).

import torch

words = ['emma', 'olivia', 'ava', 'isabella', 'sophia', 'charlotte', 'mia', 'amelia',
         'harper', 'evelyn', 'abigail', 'emily', 'elizabeth', 'mila', 'ella', 'avery',
         'sofia', 'camila', 'aria', 'scarlett', 'victoria', 'madison', 'luna', 'grace',
         'chloe', 'penelope', 'layla', 'riley', 'zoey', 'nora', 'lily', 'eleanor',
         'jack', 'quinn', 'xavier', 'wyatt']

N = torch.zeros((27, 27), dtype=torch.int32)

chars = sorted(list(set(''.join(words))))
stoi = {s:i+1 for i,s in enumerate(chars)}
stoi['.'] = 0
itos = {i:s for s,i in stoi.items()}

for w in words:
  chs = ['.'] + list(w) + ['.']
  for ch1, ch2 in zip(chs, chs[1:]):
    ix1 = stoi[ch1]
    ix2 = stoi[ch2]
    N[ix1, ix2] += 1

p = N[0].double()
p = p / p.sum()
print(p)

g = torch.Generator().manual_seed(2147483647)
ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
print(itos[ix])

g = torch.Generator().manual_seed(2147483647)
p = torch.rand(3, generator=g)
p = p / p.sum()
print(p)

print(torch.multinomial(p, num_samples=100, replacement=True, generator=g))

P = (N+1).double()
P /= P.sum(1, keepdims=True)

g = torch.Generator().manual_seed(2147483647)

for i in range(5):

  out = []
  ix = 0
  while True:
    p = P[ix]
    ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
    out.append(itos[ix])
    if ix == 0:
      break
  print(''.join(out))
