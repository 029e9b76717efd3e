# Parameter groups: each with its own options, changed between steps
# through opt.param_groups, as PyTorch's tutorials do.
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
opt = torch.optim.SGD([{'params': model[0].parameters()}, {'params': model[2].parameters(), 'lr': 0.5}],
                      lr=0.1, momentum=0.9)
print(len(opt.param_groups), opt.param_groups[0]['lr'], opt.param_groups[1]['lr'], opt.param_groups[1]['momentum'])
print(sorted(opt.param_groups[0].keys()) == sorted(opt.param_groups[1].keys()))
x = torch.randn(5, 2)
y = torch.randn(5, 1)
for step in range(6):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    if step == 2:
        for g in opt.param_groups:
            g['lr'] = g['lr'] * 0.1
    print(step, round(loss.item(), 12))
print(model[2].weight)
adam = torch.optim.Adam(model.parameters(), lr=0.01)
print(adam.param_groups[0]['betas'], adam.param_groups[0]['eps'], adam.param_groups[0]['lr'])
# torch.optim.Optimizer, the optimizers' base, for isinstance (d2l's train_epoch_ch3).
print(isinstance(opt, torch.optim.Optimizer), isinstance(adam, torch.optim.Optimizer),
      isinstance(model, torch.optim.Optimizer), isinstance([], torch.optim.Optimizer))
