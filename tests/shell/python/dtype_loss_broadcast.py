# mse_loss, l1_loss and smooth_l1_loss broadcast their operands first
# (torch.broadcast_tensors), so a 0-d float64 operand beside a float32 one
# with dimensions gives float64; huber_loss keeps its input's dtype
import torch
x0 = torch.tensor(0.32, requires_grad=True)
x2 = torch.tensor([[-0.0, 1.3, 0.9], [-1.8, -1.2, -0.02]], dtype=torch.float32, requires_grad=True)
F = torch.nn.functional
for f in (F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss):
    losses = [f(x0, x2), f(x2, x0 * 2), f(x2[0, 0], x0), f(x2, x2 * 2)]
    print([l.detach() for l in losses])
print(F.mse_loss(x0, x0 * 3).dtype, (x0 - x2).dtype)
