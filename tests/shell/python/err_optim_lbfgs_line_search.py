# LBFGS's only line search is 'strong_wolfe': another name is refused at the
# first step that would search (after the closure's first evaluation).
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
opt = torch.optim.LBFGS([x], line_search_fn='backtracking')


def closure():
    print('evaluated')
    opt.zero_grad()
    loss = (x ** 2).sum()
    loss.backward()
    return loss


opt.step(closure)
print('not reached')
