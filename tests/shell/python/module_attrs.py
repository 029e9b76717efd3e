# Attributes a script gives a module: torch.backends.cudnn's flags (a seeding
# function's lines), setattr/getattr/hasattr of one, += on one.
import torch
import math
import random
print(torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark, torch.backends.cudnn.enabled)
print(torch.backends.cudnn.is_available(), torch.cuda.is_available())
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
print(torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark)
setattr(math, 'foo', 3)
print(math.foo, getattr(math, 'foo'), hasattr(math, 'foo'), hasattr(math, 'bar'))
math.foo += 1
print(math.foo)
def seed_everything(seed):
    random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
seed_everything(42)
print(torch.rand(2))
math.lst = [1]
math.lst.append(2)
print(math.lst)
