# PyTorch's submodules that hold what ag's modules have import as those, and
# an imported module's __name__ is its own (mod_helpers.py's main part does
# not run on import: import_local.py).
from torch.utils.data.dataloader import DataLoader
from torch.utils.data.dataset import TensorDataset
import torch.nn.modules.module as module
from torch.nn.parameter import Parameter
import torch

ds = TensorDataset(torch.arange(4.))
print(DataLoader.__name__, len(ds), module.Module.__name__, Parameter(torch.ones(1)))
