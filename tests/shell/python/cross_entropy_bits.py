# nll_loss and cross_entropy sum their picked values in PyTorch's cascade
# (eight levels of partial sums, nll_loss_out_frame), so the mean is
# PyTorch's to the last bit (float64; its nn_train-sized batches too)
import torch
import torch.nn.functional as F
for seed in range(8):
    torch.manual_seed(seed)
    n, c = [(8, 2), (5, 3), (100, 4), (1000, 10), (33, 2), (257, 5), (17, 3), (64, 7)][seed]
    x = torch.randn(n, c)
    y = torch.randint(0, c, (n,))
    print(seed, F.cross_entropy(x, y).item(), F.cross_entropy(x, y, reduction='sum').item(),
          F.nll_loss(F.log_softmax(x, 1), y).item())
torch.manual_seed(9)
x = torch.randn(4, 3, 5)
y = torch.randint(0, 3, (4, 5))
print(F.cross_entropy(x, y).item(), F.nll_loss(F.log_softmax(x, 1), y, reduction='sum').item())
