# backward on a non-scalar (naming its shape) or on a value with no graph;
# a freed graph (and another graph, which a backward leaves alone); .grad of
# a non-leaf.
e() { $AG -e "$1" 2>&1; echo "[exit $?]"; }
e 'x = ones(2, 3, grad); y = x * 2; backward(y)'
e 'backward(ones(2, grad))'
e 'backward(zeros(0, grad))'
e 'backward(5)'
e 'c = [1, 2]; backward(sum(c * c))'
e 'x = tensor([1, 2], grad); y = sum(x * x); backward(y); backward(y)'
e 'x = tensor([1, 2], grad); y = sum(x * x); backward(y); backward(y * 2)'
e 'x = tensor(2, grad); y = x * x; z = x * 3; backward(y); backward(z * 1)'
e 'x = tensor([1, 2], grad); y = x * 2; y.grad'
e 'x = tensor([1, 2], grad); (x * 2).grad'
e 'x = tensor([1, 2], grad); y = x * 2; backward(sum(y)); y.grad'
