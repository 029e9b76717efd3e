# Source: Andrej Karpathy, "The spelled-out intro to language modeling:
#   building makemore" (Neural Networks: Zero to Hero, lecture 2), notebook
#   lectures/makemore/makemore_part1_bigrams.ipynb: the counting bigram model
#   https://github.com/karpathy/nn-zero-to-hero/blob/master/lectures/makemore/makemore_part1_bigrams.ipynb
#   https://www.youtube.com/watch?v=PaCmpygFfXo  (MIT licence)
# Changed: names.txt (32,033 names) replaced by 36 common names written in
#   the file (every letter occurs); the notebook's cells run as one script and the values cells
#   display printed with print(); matplotlib's imshow of N dropped; the
#   sampling cells are in makemore_bigram_sampling.py (they draw random
#   numbers).  The per-bigram print in the likelihood loop is active, as
#   when the lecture runs it over a few words.  Each .float() became .double():
#   the oracle runs with float64 as the default dtype, where float32 would
#   mix with float64 tensors (N stays int32 as published).

words = ['emma', 'olivia', 'ava', 'isabella', 'sophia', 'charlotte', 'mia', 'amelia',
         'harper', 'evelyn', 'abigail', 'emily', 'elizabeth', 'mila', 'ella', 'avery',
         'sofia', 'camila', 'aria', 'scarlett', 'victoria', 'madison', 'luna', 'grace',
         'chloe', 'penelope', 'layla', 'riley', 'zoey', 'nora', 'lily', 'eleanor',
         'jack', 'quinn', 'xavier', 'wyatt']

print(words[:10])
print(len(words))
print(min(len(w) for w in words))
print(max(len(w) for w in words))

b = {}
for w in words:
  chs = ['<S>'] + list(w) + ['<E>']
  for ch1, ch2 in zip(chs, chs[1:]):
    bigram = (ch1, ch2)
    b[bigram] = b.get(bigram, 0) + 1

print(sorted(b.items(), key = lambda kv: -kv[1])[:10])

import torch

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

print(N[0])

p = N[0].double()
p = p / p.sum()
print(p)

P = (N+1).double()
P /= P.sum(1, keepdims=True)

print(P.shape)
print(P[0].sum())

# GOAL: maximize likelihood of the data w.r.t. model parameters (statistical modeling)
# equivalent to maximizing the log likelihood (because log is monotonic)
# equivalent to minimizing the negative log likelihood
# equivalent to minimizing the average negative log likelihood

# log(a*b*c) = log(a) + log(b) + log(c)

log_likelihood = 0.0
n = 0
for w in words:
#for w in ["andrejq"]:
  chs = ['.'] + list(w) + ['.']
  for ch1, ch2 in zip(chs, chs[1:]):
    ix1 = stoi[ch1]
    ix2 = stoi[ch2]
    prob = P[ix1, ix2]
    logprob = torch.log(prob)
    log_likelihood += logprob
    n += 1
    print(f'{ch1}{ch2}: {prob:.4f} {logprob:.4f}')

print(f'{log_likelihood=}')
nll = -log_likelihood
print(f'{nll=}')
print(f'{nll/n}')
