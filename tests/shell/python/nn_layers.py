# Each layer of torch.nn on the same input, as PyTorch computes it.
import torch
import torch.nn as nn

torch.manual_seed(3)
x = torch.randn(4, 3)
for layer in [nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.GELU(), nn.SiLU(), nn.LeakyReLU(0.2),
              nn.Softmax(dim=1), nn.LogSoftmax(dim=1), nn.Identity(), nn.Flatten()]:
    print(layer, round(layer(x).sum().item(), 12))  # libm and SLEEF differ in the last bits
drop = nn.Dropout(p=0.5)
print(drop, drop(x))
drop.eval()
print(torch.equal(drop(x), x))
bn = nn.BatchNorm1d(3)
print(bn)
out = bn(x)
print(out.detach())  # ag's grad_fn is the composition's, not NativeBatchNormBackward0
print(bn.running_mean, bn.running_var, int(bn.num_batches_tracked))  # int64 in PyTorch
print([n for n, p in bn.named_parameters()], list(bn.state_dict().keys()))
bn.eval()
print(bn(x).detach())
emb = nn.Embedding(5, 2)
print(emb, emb.weight)
print(emb(torch.tensor([4, 0, 4])).detach())
target = torch.rand(4, 3)
probs = torch.sigmoid(x)
for loss in [nn.MSELoss(), nn.L1Loss(), nn.SmoothL1Loss(), nn.HuberLoss(delta=0.5),
             nn.BCELoss(), nn.BCEWithLogitsLoss(), nn.MSELoss(reduction='sum')]:
    arg = probs if type(loss).__name__ == 'BCELoss' else x
    print(loss, round(loss(arg, target).item(), 12))
labels = torch.tensor([2, 0, 1, 1])
print(round(nn.CrossEntropyLoss()(x, labels).item(), 12))
print(round(nn.NLLLoss()(torch.log_softmax(x, dim=1), labels).item(), 12))
