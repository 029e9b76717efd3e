# cross_entropy and nll_loss with ignore_index (makemore.py's padding -1),
# the default -100 included, as functions and as loss modules.
import torch
import torch.nn.functional as F
torch.manual_seed(0)
logits = torch.randn(5, 4, requires_grad=True)
targets = torch.tensor([1, -1, 0, 3, -1])
for red in ['mean', 'sum', 'none']:
    loss = F.cross_entropy(logits, targets, ignore_index=-1, reduction=red)
    print(red, loss.detach(), loss.grad_fn.name() if red != "none" else "")
    loss.sum().backward()
    print(logits.grad)
    logits.grad = None
print(torch.nn.CrossEntropyLoss(ignore_index=-1)(logits, targets))
print(torch.nn.CrossEntropyLoss()(logits, torch.tensor([1, -100, 0, 3, 2])))
print(F.nll_loss(F.log_softmax(logits, dim=1), targets, ignore_index=-1))
print(F.cross_entropy(logits, torch.tensor([1, 2, 0, 3, 2])))
print(F.cross_entropy(logits[:2], torch.tensor([-1, -1]), ignore_index=-1))
print(torch.nn.CrossEntropyLoss(), torch.nn.NLLLoss())
