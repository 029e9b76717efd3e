# Version 2's reductions and shape ops in the shell: keywords, tuple dims,
# keepdim, methods and torch. prefixes, then bad input, one line each.
# The values are PyTorch 1.13's printing of the same lines (float64 by
# default; max and min along a dim: .values):
# /usr/bin/python3 tests/shell/reductions_shapes_torch.py compares them.
$AG - <<'EOF'
x = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True)
t = torch.arange(24.).reshape(2, 3, 4)
x.sum(dim=0, keepdim=True)
torch.sum(x, (0, 1))
x.sum(axis=-1)
torch.mean(t, dim=(0, 2))
t.mean((-1, 0), keepdim=True)
torch.var(x)
x.var(1, False, True)
torch.std(t, dim=(0, 1), unbiased=False)
x.std(dim=0)
torch.norm(x)
x.norm(1, 1)
torch.norm(t, p=3, dim=(1, 2), keepdim=True)
x.norm(p=inf, dim=0)
torch.logsumexp(x, 1)
x.logsumexp(dim=(0, 1), keepdim=True)
torch.max(x)
x.max(1, keepdim=True)
torch.min(t, dim=-1)
x.min()
torch.argmax(x)
x.argmin(dim=1, keepdim=True)
torch.argmax(t, -1)
torch.flatten(t, 1)
t.flatten(start_dim=0, end_dim=1).shape
torch.squeeze(torch.zeros(2, 1, 3)).shape
torch.zeros(2, 1, 3).squeeze(dim=1).shape
x.unsqueeze(-1).shape
torch.unsqueeze(x, dim=0)
x.permute(1, 0)
t.permute((2, 0, 1)).shape
torch.permute(t, (-1, -3, -2)).shape
x.t()
torch.t(torch.tensor([1., 2.]))
torch.cat([x, x], 1)
torch.cat([x, torch.ones(1, 3)], dim=0)
torch.cat((x, torch.ones(2, 1)), -1)
torch.stack([x, x], 1).shape
torch.cat([x, torch.tensor([])])
y = (x.std(1) * torch.tensor([1., 2.])).sum() + x.logsumexp(1).sum() + x.max()
y.backward()
x.grad
EOF
e() { $AG -e "$1" 2>&1; echo "[exit $?]"; }
e 'sum(ones(2, 3), 2)'
e 'ones(2, 3).max(dim=-3)'
e 'torch.norm(ones(2, 3), dim=(0, 5))'
e 'squeeze(ones(2, 3), 2)'
e 'unsqueeze(ones(2, 3), 3)'
e 'flatten(ones(2, 3), 1, 0)'
e 'permute(ones(2, 3), 0)'
e 'ones(2, 3).permute(0, 0)'
e 't(ones(2, 2, 2))'
e 'cat([ones(2, 3), ones(2, 2)])'
e 'cat([ones(2, 3), ones(3)], 1)'
e 'cat([ones(2, 3), 5])'
e 'cat([])'
e 'cat([ones(2)], 1)'
e 'stack([ones(2, 3), ones(2, 2)])'
e 'stack([])'
e 'sum(ones(2, 3), dims=0)'
e 'ones(2, 3).sum((0, 0))'
e 'ones(2, 3).var((1, -1))'
e 'ones(2, 3).mean(dim=(0, 1.5))'
e 'max(ones(2, 3), (0, 1))'
e 'max(ones(2), keepdim=True)'
e 'max(zeros(0))'
e 'argmax(zeros(0, 3), 0)'
e 'logsumexp(ones(2))'
e 'norm(ones(2), "fro")'
