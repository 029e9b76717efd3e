# :dot after a backward draws the graph that backward went through, as
# micrograd's draw_dot does: a record per tensor with its data and grad, an
# op node between each and its operands, each edge labelled with its local
# derivative when that is one number; leaves that require grad filled blue,
# the loss red; past 6 elements a tensor is summarised (min, max, norm).
# Before this, :dot NAME after backward drew "(graph freed)". Every number
# is PyTorch's: /usr/bin/python3 tests/shell/dot_snapshot_torch.py writes
# the DOT text of both graphs (compare with the two digraphs below).
# Graphviz's dot parses it: make test-graphviz (tests/graphviz.sh).
e() { $AG "$@" 2>&1; echo "[exit $?]"; }
lecture='a = tensor(2., grad); b = tensor(-3., grad); c = tensor(10., grad); e = a * b; d = e + c; f = tensor(-2., grad); L = d * f'
echo '--- micrograd lecture 1: L = (a*b + c) * f, after backward'
e -e "$lecture" -e 'backward(L)' -e ':dot'
echo '--- :dot NAME after backward: the graph below NAME, the same numbers'
e -e "$lecture" -e 'backward(L)' -e ':dot d' | grep -c 'shape=record'
echo '--- a tensor past 6 elements is summarised; a constant is grey'
e -e 'w = tensor([0.5, -1., 1.5, -2., 2.5, -3., 3.5, 4.], grad); y = sum(w * w * 3)' \
  -e 'backward(y)' -e ':dot'
echo '--- before any backward, and with bad arguments'
e -e ':dot'
e -e "$lecture" -e 'backward(L)' -e ':dot out.svg extra'
e -e "$lecture" -e 'backward(L)' -e ':dot nothere'
echo '--- a backward in a loop keeps no graph (and the last one goes)'
e -e "$lecture" -e 'backward(L)' -e 'for i in range(2) { L = (a * b + c) * f; backward(L) }' -e ':dot'
