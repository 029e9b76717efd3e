# Anomaly mode over a torch.autograd.Function and a create_graph backward:
# PyTorch names a Function subclass's backward as given (RootBackward, no
# version suffix), and a gradient of a gradient is checked as any other.
import torch


class Root(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sqrt()

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g / (2 * x.sqrt())


x = torch.tensor([1.0, 0.0], requires_grad=True)
with torch.autograd.set_detect_anomaly(True):
    (g,) = torch.autograd.grad((x * x * x).sum(), x, create_graph=True)
    print(g)
    (h,) = torch.autograd.grad(g.sum(), x)
    print(h)
    y = (Root.apply(x) * 0).sum()
    y.backward()
print("not reached")
