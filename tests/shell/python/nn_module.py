# A model written as PyTorch's tutorials write it: a subclass of nn.Module.
import torch
import torch.nn as nn
from torch.nn import Linear

class TwoLayerNet(torch.nn.Module):
    def __init__(self, D_in, H, D_out):
        super().__init__()
        self.linear1 = Linear(D_in, H)
        self.act = nn.ReLU()
        self.linear2 = torch.nn.Linear(H, D_out)
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return self.linear2(self.act(self.linear1(x))) * self.scale

torch.manual_seed(1)
N, D_in, H, D_out = 16, 3, 5, 2
x = torch.randn(N, D_in)
y = torch.randn(N, D_out)
model = TwoLayerNet(D_in, H, D_out)
print(model)
print([n for n, p in model.named_parameters()])
print([type(m).__name__ for m in model.children()])
print([n for n, m in model.named_modules()])
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
for t in range(20):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 5 == 4:
        print(t, round(loss.item(), 10))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(model.scale)
sd = model.state_dict()
other = TwoLayerNet(D_in, H, D_out)
print(other.load_state_dict(sd))
print(torch.equal(other(x), model(x)))

labels = torch.tensor([0, 1, 1, 0])
logits_net = nn.Sequential(nn.Linear(3, 8), nn.GELU(), nn.Dropout(0.25), nn.Linear(8, 2))
print(logits_net)
ce = nn.CrossEntropyLoss()
opt = torch.optim.SGD(logits_net.parameters(), lr=0.1)
inputs = torch.randn(4, 3)
for step in range(3):
    opt.zero_grad()
    loss = ce(logits_net(inputs), labels)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 10))
logits_net.eval()
print([int(i) for i in logits_net(inputs).argmax(dim=1).tolist()])
