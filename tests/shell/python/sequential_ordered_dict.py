# nn.Sequential of an OrderedDict (its names kept), state_dict an OrderedDict,
# load_state_dict from it.
import torch
import torch.nn as nn
from collections import OrderedDict
torch.manual_seed(0)
model = nn.Sequential(OrderedDict([
    ('fc1', nn.Linear(3, 4)),
    ('relu', nn.ReLU()),
    ('fc2', nn.Linear(4, 1)),
]))
print(model)
print(model.fc1, model[0] is model.fc1, len(model))
print(list(model.state_dict().keys()))
sd = model.state_dict()
print(type(sd).__name__, list(sd)[:2])
print(nn.Linear(2, 1).state_dict())
x = torch.randn(2, 3)
print(model(x))
m2 = nn.Sequential(OrderedDict([('fc1', nn.Linear(3, 4)), ('relu', nn.ReLU()), ('fc2', nn.Linear(4, 1))]))
m2.load_state_dict(sd)
print(torch.equal(m2(x), model(x)))
for name, p in model.named_parameters():
    print(name, p.shape)
