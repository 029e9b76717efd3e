# 0-d and 1-D tensors in transpose, reshape and .T (issue 9, item 11):
# transpose(x) swaps the last two dims, which they do not have (PyTorch:
# "Dimension out of range"); reshape(x) with no dimensions makes a
# one-element tensor 0-d, as PyTorch's x.reshape(()) does; x.T of a 0-d or
# 1-D tensor is x itself, no graph recorded (docs/language.md).
# /usr/bin/python3 -c 'import torch
#   for t in [torch.tensor(3.), torch.tensor([1., 2.])]:
#     try: torch.transpose(t, -2, -1)
#     except IndexError as e: print(e)
#   print(repr(torch.tensor([5.]).reshape(())), torch.tensor([[5.]]).reshape(()).shape)'
# -> Dimension out of range (expected to be in range of [-1, 0], but got -2)  (twice)
#    tensor(5.) torch.Size([])
e() { $AG -e "$1" 2>&1; echo "[exit $?]"; }
echo '--- transpose of a 0-d or 1-D tensor is an error'
e 'transpose(tensor(3.))'
e 'transpose(tensor([1., 2.]))'
e 'tensor([1., 2.], grad).transpose()'
echo '--- reshape with no dimensions: 0-d'
e 'reshape(tensor([5.]))'
e 'x = tensor([[5.]], grad); y = reshape(x); print(y.shape, y.ndim); y'
e 'reshape(tensor([5., 6.]))'
echo '--- x.T of a 0-d or 1-D tensor is x: no Function recorded'
e 'x = tensor([1., 2.], grad); y = x.T; print(y.grad_fn, y.is_leaf, y.shape)'
e 's = tensor(3., grad); print(s.T.grad_fn, s.T.is_leaf)'
e 'x = tensor([1., 2.], grad); y = x.T
:graph y'
e 'x = tensor([1., 2.], grad); backward(sum(x.T * [3., 4.])); x.grad'
