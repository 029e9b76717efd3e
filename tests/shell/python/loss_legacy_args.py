# Loss modules take PyTorch's legacy size_average= and reduce= (older
# tutorials' BCELoss(size_average=False)), BCELoss its weight, and
# BCEWithLogitsLoss its weight and pos_weight; ctx.saved_variables is
# saved_tensors, as in older custom Functions.
import torch
import torch.nn as nn
p = torch.tensor([0.2, 0.7, 0.9])
y = torch.tensor([0.0, 1.0, 1.0])
for loss in [nn.BCELoss(size_average=False), nn.BCELoss(reduce=False), nn.BCELoss(size_average=True),
             nn.BCELoss(weight=torch.tensor([1.0, 2.0, 0.5])), nn.MSELoss(size_average=False),
             nn.L1Loss(reduce=False, size_average=False), nn.SmoothL1Loss(size_average=False),
             nn.BCEWithLogitsLoss(pos_weight=torch.tensor([3.0])),
             nn.BCEWithLogitsLoss(weight=torch.tensor([1.0, 0.0, 2.0]), size_average=False)]:
    print(loss, loss.reduction, loss(p, y))
logits = torch.tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]])
labels = torch.tensor([1, 2])
print(nn.CrossEntropyLoss(size_average=False)(logits, labels), nn.NLLLoss(reduce=False)(logits, labels))
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_variables
        return 2 * x * g
x = torch.tensor([1.0, 3.0], requires_grad=True)
Square.apply(x).sum().backward()
print(x.grad)
logp = torch.log_softmax(torch.tensor([[1.0, 2.0, 0.5], [0.3, 0.1, 2.0]]), 1)
q = torch.softmax(torch.tensor([[0.5, 1.0, 1.5], [2.0, 0.0, 1.0]]), 1)
for kl in [nn.KLDivLoss(), nn.KLDivLoss(reduction='batchmean'), nn.KLDivLoss(reduction='sum'),
           nn.KLDivLoss(reduction='batchmean', log_target=True), nn.KLDivLoss(size_average=False)]:
    print(kl, kl.reduction, kl(logp, q.log() if kl.log_target else q))
