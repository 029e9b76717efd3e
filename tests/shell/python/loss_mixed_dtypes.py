# Losses given a target of another dtype, as tutorials written for
# float32 make them under float64 (y = (x > 0).float()): what PyTorch
# computes, refuses at once, or refuses at backward (mse_loss and
# huber_loss: pytorch#36553). binary_cross_entropy_with_logits keeps the
# float32 target's dtype ((1 - target).mul_(input)), each step rounded
# to float as PyTorch's in-place ops round it.
import torch
import torch.nn.functional as F

for name in ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
             "binary_cross_entropy_with_logits"]:
    for dx, dt in ((torch.float64, torch.float32), (torch.float32, torch.float64)):
        z = torch.tensor([0.3, 0.6, 0.9], dtype=dx, requires_grad=True)
        y = torch.tensor([1.0, 0.0, 1.0], dtype=dt)
        text = ""
        try:
            loss = getattr(F, name)(z, y)
            text = f"{loss.dtype} {loss.item()!r}"
            if name == "binary_cross_entropy_with_logits" and dx == torch.float32:
                text = f"{loss.dtype} {loss.item():.6f}"  # float32 log terms: not ag's bits
            loss.backward()
            text += f" grad {z.grad.dtype} {z.grad.tolist()}"
        except RuntimeError as e:
            text += f" RuntimeError: {e}"
        print(name, dx, dt, text)

torch.manual_seed(0)
x = torch.randn(50, 2)
y = (x[:, 0] - x[:, 1] > 0).float()
w = torch.zeros(2, requires_grad=True)
for weight, pos_weight in ((None, None), (torch.rand(50), None), (None, torch.tensor([2.0]))):
    loss = F.binary_cross_entropy_with_logits(x @ w + 0.1, y, weight=weight, pos_weight=pos_weight)
    loss.backward()
    print(loss, loss.item(), w.grad)
    w.grad = None
print(F.binary_cross_entropy_with_logits(x @ w + 0.3, y, reduction="sum").item())
print(F.binary_cross_entropy_with_logits(x[:3] @ w + 0.3, y[:3], reduction="none"))
