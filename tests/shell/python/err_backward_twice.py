# A second backward through a graph the first one freed: PyTorch's
# "Trying to backward through the graph a second time", on its line.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward()
print(x.grad)
y.backward()
print("not reached")
