# The activations and the selections (clamp, where, minimum, maximum) as
# builtins: defaults, positional and keyword arguments, methods, torch.NAME,
# gradients at and beside the kinks, nan and inf, ties, broadcasting, the
# rule :help shows, and one clear line for each mistake. Every value and
# gradient printed is PyTorch 1.13's, as printed by
# /usr/bin/python3 tests/shell/activations_torch.py (the same lines, in
# order, without the [exit] lines, the errors and :help).
e() { $AG -e "$1" 2>&1; echo "[exit $?]"; }
X='x = tensor([-4., -3, -1, -0.5, 0, 0.5, 3, 6, 7])'
echo '--- values, with the defaults and with arguments'
e "$X; leaky_relu(x)"
e "$X; leaky_relu(x, 0.2)"
e "$X; leaky_relu(x, negative_slope=-1.5)"
e "$X; elu(x)"
e "$X; elu(x, alpha=0.5)"
e "$X; gelu(x)"
e "$X; gelu(x, approximate='tanh')"
e "$X; silu(x)"
e "$X; relu6(x)"
e "$X; hardsigmoid(x)"
e "$X; hardswish(x)"
e "$X; softplus(x)"
e "$X; softplus(x, beta=2, threshold=10)"
e "$X; softplus(x, 0.5)"
e "$X; clamp(x, -1, 3)"
e "$X; clamp(x, max=0.5)"
e "$X; where(x > 0, x, 0)"
e "$X; maximum(x, tensor(0.5))"
e "$X; minimum(x, tensor([[0.], [6]]))"
echo '--- methods and torch.NAME'
e "$X; x.leaky_relu(0.1)"
e "$X; x.elu()"
e "$X; x.gelu()"
e "$X; x.silu()"
e "$X; x.relu6()"
e "$X; x.hardsigmoid()"
e "$X; x.hardswish()"
e "$X; x.softplus(beta=2)"
e "$X; x.clamp(min=0)"
e "$X; x.maximum(tensor(1.))"
e "$X; x.minimum(tensor(1.))"
e "$X; torch.clamp(x, min=tensor([[0.], [1]]))"
e "$X; torch.where(x < 0, -x, tensor([[1.], [2]]))"
e "$X; torch.maximum(x, tensor(2.))"
e "$X; torch.minimum(x, tensor(2.))"
echo '--- nan, inf, ties'
e "v = tensor([nan, inf, -inf, 0, -0.]); leaky_relu(v)"
e "v = tensor([nan, inf, -inf, 0, -0.]); elu(v)"
e "v = tensor([nan, inf, -inf, 0, -0.]); softplus(v)"
e "v = tensor([nan, inf, -inf, 0, -0.]); relu6(v)"
e "v = tensor([nan, inf, -inf, 0, -0.]); clamp(v, -1, 1)"
e "maximum(tensor([nan, 1, 2, 3]), tensor([0, nan, 2, 1]))"
e "minimum(tensor([nan, 1, 2, 3]), tensor([0, nan, 2, 1]))"
echo '--- gradients'
G='x = tensor([-4., -3, -1, 0, 1, 2.5, 6, 7], grad)'
e "$G; backward(sum(leaky_relu(x, negative_slope=0.2)))"
e "$G; backward(sum(elu(x, alpha=0.5)))"
e "$G; backward(sum(gelu(x)))"
e "$G; backward(sum(gelu(x, approximate='tanh')))"
e "$G; backward(sum(silu(x)))"
e "$G; backward(sum(relu6(x)))"
e "$G; backward(sum(hardsigmoid(x)))"
e "$G; backward(sum(hardswish(x)))"
e "x = tensor([-4., 0, 4.9, 5, 5.1, 20, 21], grad); backward(sum(softplus(x, beta=2, threshold=10)))"
e "x = tensor([-2., -1, 0, 1, 2], grad); lo = tensor(-1., grad); hi = tensor([1., 1, 1, 1, 0.5], grad); backward(sum(clamp(x, lo, hi)))"
e "x = tensor([-2., -1, 0, 1, 2], grad); backward(sum(x.clamp(min=0)))"
e "a = tensor([1., 2, 3], grad); b = tensor([[10.], [20]], grad); backward(sum(where(tensor([1., 0, 1]), a, b)))"
e "a = tensor([1., 2, 3], grad); b = tensor([1., 1, 4], grad); backward(sum(maximum(a, b)))"
e "a = tensor([1., 2, 3], grad); b = tensor([1., 1, 4], grad); backward(sum(minimum(a, b)))"
echo '--- :help shows the rule'
for name in leaky_relu elu gelu silu relu6 hardsigmoid hardswish softplus clamp where \
            minimum maximum; do
    $AG -e ":help $name" | tail -n 1
done
echo '--- mistakes'
e "$X; leaky_relu(x, slope=0.2)"
e "$X; leaky_relu(x, negative_slope='steep')"
e "$X; leaky_relu(x, negative_slope=None)"
e "$X; elu(x, alpha=ones(2))"
e "$X; softplus(x, beta=2, threshold=10, limit=3)"
e "$X; clamp(x)"
e "$X; x.clamp()"
e "$X; gelu(x, approximate='fast')"
e "where(ones(2), ones(3), ones(2, 1))"
e "maximum(ones(2), ones(3))"
e "clamp(ones(2, 3), min=ones(2))"
e "$X; x.where(x > 0, 0)"
e "relu6()"
