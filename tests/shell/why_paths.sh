# :why NAME: every path from the last backward's loss down to NAME, the
# product of the local derivatives along it (through tensors, the gradient
# after each step), summed and compared with the gradient backward gave:
# the diamond y = a*b + a, a shared subexpression (t = x*x used twice) and
# a broadcast (a scalar times a vector). Every number is PyTorch's, and the
# path sums equal its gradients to the last digit (Python's repr):
#     /usr/bin/python3 tests/shell/why_paths_torch.py |
#         diff - <(sed '/^--- refusals/,$d' tests/shell/why_paths.out)
# prints nothing (at x = 0.3 the sum and the gradient part in the last
# digit, and :why says why). Then :why's refusals, each one clear line.
e() { $AG "$@" 2>&1; echo "[exit $?]"; }
echo '--- the diamond'
e -e 'a = tensor(0.7, grad); b = tensor(-1.3, grad); y = a * b + a' -e 'backward(y)' \
  -e ':why a' -e ':why b.grad'
echo '--- a shared subexpression'
e -e 'x = tensor(0.2, grad); t = x * x; y = t * t + t' -e 'backward(y)' -e ':why x' -e ':why t'
echo '--- a broadcast'
e -e 'a = tensor(0.5, grad); v = tensor([0.1, -0.2, 0.3], grad); y = sum(a * v + a)' \
  -e 'backward(y)' -e ':why a' -e ':why v'
echo '--- where rounding parts them: backward adds at t before multiplying by x'
e -e 'x = tensor(0.3, grad); t = x * x; y = t * t + t' -e 'backward(y)' -e ':why x'
echo '--- 64 paths: grouped by the op that takes x (the gradient backward sent along each edge)'
e -e 'x = tensor(0.9, grad); t = x' -e 'for i in range(6) { t = t * t }' -e 'y = t + x' \
  -e 'backward(y)' -e ':why x'
echo '--- refusals'
e -e 'x = tensor(1., grad)' -e ':why x'
e -e 'x = tensor(1., grad); y = x * 2' -e 'backward(y)' -e ':why'
e -e 'x = tensor(1., grad); y = x * 2' -e 'backward(y)' -e ':why 2x'
e -e 'x = tensor(1., grad); y = x * 2' -e 'backward(y)' -e ':why x.grad.grad'
e -e 'x = tensor(1., grad); y = x * 2' -e 'backward(y)' -e ':why nothere'
e -e 'x = tensor(1., grad); y = x * 2; z = tensor(3.)' -e 'backward(y)' -e ':why z'
e -e 'x = tensor(1., grad); y = x * 2' -e 'backward(y)' -e ':why y'
e -e 'x = tensor(1., grad); c = tensor(2.); y = x * c' -e 'backward(y)' -e ':why c'
e -e 'x = ones(100, grad); y = sum(x * x)' -e 'backward(y)' -e ':why x'
