# Errors of embedding, roll, the typed constructors and narrow, as PyTorch
# 1.13 words them.
import torch
import torch.nn.functional as F
for bad in [lambda: F.embedding(torch.tensor([0.5]), torch.ones(2, 2)),
            lambda: torch.roll(torch.arange(4), (1, 2), 0),
            lambda: torch.LongTensor(-1),
            lambda: torch.arange(3).narrow(0, 0, -1)]:
    try:
        bad()
    except (RuntimeError, IndexError, TypeError) as e:
        print(type(e).__name__, e)
