# The builtins made from the engine's op table: every op is a builtin (and a
# method), its list parameter takes a list or the tensors as arguments,
# aliases name their op, and an op without a gradient rule is refused by
# grad. Values hand-computed: stack puts a and b side by side.
e() { $AG -e "$1" 2>&1; echo "[exit $?]"; }
e 'a = tensor([1, 2]); b = tensor([3, 4]); stack([a, b], 1)'
e 'a = tensor([1, 2]); b = tensor([3, 4]); stack(a, b)'
e 'a = tensor([1, 2]); b = tensor([3, 4]); stack((a, b), dim=-1)'
e 'a = tensor([1, 2]); stack([a, 10 * a, 7])'
e 'a = tensor([1, 2], grad); s = stack([a, a, a, a, a]); backward(sum(s * s))'
e 'x = tensor([[1, 2, 3], [4, 5, 6]]); x.select(1, 2)'
e 'x = tensor([[1, 2, 3], [4, 5, 6]]); select(x, dim=0, index=-1)'
e 'eq(tensor([1, 2]), 2)'
e 'tensor([1, 2]).lt(2)'
e 'add(1, 2) * mul(tensor([3]), 4)'
e 'mse(tensor([1., 2.]), tensor([0., 0.]))'
e 'tensor([1, 2]).view(2, 1)'
e ':help view'
e ':help stack'
e 'a = ones(2); stack([a, a], 1, dim=0)'
e 'a = ones(2); stack([a, a], 1, 2)'
e 'stack([])'
e 'stack([1, 2])'
e 'stack([ones(2), ones(3)])'
e 'select(ones(2, 2), 0, 1.5)'
e 'select(ones(2, 2), 0, 2)'
e 'grad(eq, 1, 2)'
e 'grad(floor_divide, 1, 2)'
