# The losses: each with its keywords and each reduction, and the gradients
# backward prints; then the errors, one line each. Every value printed is
# PyTorch 1.13's as PyTorch prints it in float64: tests/shell/losses.py
# prints the same values in PyTorch, with the command that compares them.
e() { $AG -e "$1" 2>&1; echo "[exit $?]"; }
X='x = tensor([[0.2, 0.7, 0.4], [0.9, 0.5, 0.1]], grad); t = tensor([[0., 1., 0.5], [1., 0.5, 0.]], grad)'
Z='z = tensor([[1.5, -0.3, 0.8], [-2., 0.4, 3.]], grad)'
echo '--- mse_loss (alias mse): mean, sum, none; a target that broadcasts'
e "$X
mse_loss(x, t)
mse(x, t, reduction='sum')
mse_loss(x, t, reduction='none')
mse_loss(x, tensor([0., 1., 0.5]))
backward(mse_loss(x, t))"
echo '--- l1_loss'
e "$X
l1_loss(x, t)
l1_loss(x, t, reduction='none')
backward(l1_loss(x, t, reduction='sum'))"
echo '--- smooth_l1_loss and huber_loss: both sides of beta and delta'
e "$X
smooth_l1_loss(x, t)
smooth_l1_loss(x, t, beta=0.25, reduction='none')
huber_loss(x, t, delta=0.25)
huber_loss(x, t, 'sum', 0.25)
backward(smooth_l1_loss(x, t, reduction='sum', beta=0.25))
zero_grad()
backward(huber_loss(x, t, delta=0.25))"
echo '--- binary_cross_entropy: weight; the target is differentiated too'
e "$X
binary_cross_entropy(x, t)
binary_cross_entropy(x, t, tensor([1., 2., 0.5]), reduction='none')
binary_cross_entropy(tensor([0., 1.]), tensor([1., 0.]))
backward(binary_cross_entropy(x, t, weight=tensor([1., 2., 0.5])))"
echo '--- binary_cross_entropy_with_logits: weight, pos_weight'
e "$Z; t = tensor([[0., 1., 0.5], [1., 0.5, 0.]], grad)
binary_cross_entropy_with_logits(z, t)
binary_cross_entropy_with_logits(z, t, pos_weight=tensor([2., 1., 0.5]), reduction='none')
binary_cross_entropy_with_logits(tensor([800., -800.]), tensor([0., 1.]), reduction='sum')
backward(binary_cross_entropy_with_logits(z, t, tensor([[1.], [0.5]]), pos_weight=tensor([2., 1., 0.5])))"
echo '--- nll_loss and cross_entropy: classes (N,), and (C,) with a 0-d class'
e "$Z
nll_loss(log_softmax(z, 1), tensor([2, 0]))
nll_loss(log_softmax(z, 1), tensor([2, 0]), reduction='none')
cross_entropy(z, tensor([2, 0]), reduction='sum')
cross_entropy(tensor([0.5, 1., 2.]), tensor(1))
backward(cross_entropy(z, tensor([2, 0])))"
echo "--- kl_div: 'mean' is the element mean (PyTorch 1.13), 'batchmean' KL's; log_target"
e "lp = tensor([[-1.2, -0.4, -2.3], [-0.1, -3., -2.5]], grad); q = tensor([[0.3, 0.5, 0.2], [0.6, 0.1, 0.3]], grad)
kl_div(lp, q)
kl_div(lp, q, reduction='batchmean')
kl_div(lp, log(q), reduction='none', log_target=True)
torch.kl_div(lp, q, reduction='sum')
backward(kl_div(lp, q, reduction='batchmean'))"
echo '--- hinge_embedding_loss: targets 1 and -1, both sides of the margin'
e "h = tensor([0.3, 2., 0.2, -0.5], grad); y = tensor([1., -1., -1., 1.])
hinge_embedding_loss(h, y)
hinge_embedding_loss(h, y, margin=0.5, reduction='none')
backward(hinge_embedding_loss(h, y, 0.5))"
echo '--- cosine_embedding_loss: rows, and two vectors with a 0-d target'
e "a = tensor([[1., 0., 2.], [0.5, -1., 1.]], grad); b = tensor([[0.5, 1., 1.], [-1., 2., 0.5]], grad)
cosine_embedding_loss(a, b, tensor([1., -1.]))
cosine_embedding_loss(a, b, tensor([-1., -1.]), margin=-0.5, reduction='none')
cosine_embedding_loss(tensor([1., 0.]), tensor([1., 1.]), tensor(1.))
backward(cosine_embedding_loss(a, b, tensor([1., -1.]), margin=-0.5))"
echo '--- triplet_margin_loss: p, margin, swap, eps'
e "a = tensor([[1., 0.], [0., 2.]], grad); p = tensor([[1., 2.], [0.5, 1.5]], grad); n = tensor([[3., 1.], [0., 2.5]], grad)
triplet_margin_loss(a, p, n)
triplet_margin_loss(a, p, n, margin=0.5, p=1, reduction='none')
triplet_margin_loss(a, p, n, swap=True, eps=0)
backward(triplet_margin_loss(a, p, n, reduction='sum'))"
echo '--- PyTorch spellings: F. says what to write; reduction is a keyword, as in PyTorch'
e 'F.mse_loss(tensor([1.]), tensor([2.]))'
e 'torch.nn.functional.l1_loss(tensor([1.]), tensor([2.]))'
e "mse_loss(tensor([1.]), tensor([2.]), 'sum')"
e ':help huber_loss'
echo '--- errors'
e "mse_loss(tensor([1., 2.]), tensor([1., 2.]), reduction='avg')"
e "kl_div(tensor([1., 2.]), tensor([1., 2.]), reduction='batch')"
e 'mse_loss(ones(2, 3), ones(4))'
e 'binary_cross_entropy(tensor([0.5, 0.5]), tensor([[1., 0.]]))'
e 'binary_cross_entropy(tensor([0.5, 1.5]), tensor([1., 0.]))'
e 'binary_cross_entropy(tensor([0.5, 0.5]), tensor([1., 0.]), tensor([1., 2.], grad))'
e 'cross_entropy(ones(2, 3), tensor([0, 3]))'
e 'nll_loss(ones(2, 3), tensor([0, 1.5]))'
e 'cross_entropy(ones(2, 3), tensor([0, 1, 2]))'
e 'huber_loss(ones(2), ones(2), delta=0)'
e 'triplet_margin_loss(ones(2, 3), ones(2, 3), ones(3), p=0)'
e 'cosine_embedding_loss(ones(2, 3), ones(2, 3), ones(2, 3))'
