# x.size() is x.shape (a torch.Size, equal to a tuple of the same ints),
# x.size(dim) an int; a dim out of range is PyTorch's IndexError
import torch
x = torch.ones(3, 4)
print(x.size(), x.size(0), x.size(-1), x.size()[1], torch.ones(5).size(0), x.size(dim=1))
batch_size = x.size(0)
print(batch_size * 2, type(batch_size).__name__, x.size() == (3, 4), len(x.size()))
print(torch.tensor(2.).size())
x.size(2)
