# F.embedding and nn.Embedding: rows by index, EmbeddingBackward0, the
# gradient summed per row, and PyTorch's IndexError.
import torch
import torch.nn as nn
import torch.nn.functional as F
w = torch.arange(6.).view(3, 2).requires_grad_()
e = F.embedding(torch.tensor([[0, 2], [2, 2]]), w)
print(e)
e.sum().backward()
print(w.grad)
torch.manual_seed(1)
emb = nn.Embedding(4, 3)
print(emb(torch.tensor([0, 3])))
for bad in [lambda: emb(torch.tensor([4])), lambda: emb(torch.tensor([-1]))]:
    try:
        bad()
    except IndexError as err:
        print("IndexError:", err)
