# x.data = v of another shape: PyTorch rebinds x to v's storage and x's
# shape changes; ag's tensors keep their shape, so it is refused with a
# message (docs/pytorch.md), on its line. Of the same shape, in the .ag
# dialect too, the elements are replaced, unrecorded.
dir=${TMPDIR:-/tmp}/ag-data-shape.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
printf 'import torch\nw = torch.tensor([1., 2.], requires_grad=True)\nw.data = torch.zeros(3)\n' > "$dir/shape.py"
(cd "$dir" && $AG shape.py 2>&1)
echo "[exit $?]"
printf 'w = tensor([1, 2], grad)\nw.data = w.data * 3\nw\nw.data = zeros(3)\n' | $AG 2>&1
echo "[exit $?]"
