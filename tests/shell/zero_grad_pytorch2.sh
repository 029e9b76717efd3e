# opt.zero_grad() sets gradients to None, which is PyTorch 2's default, not
# 1.13's (zeros): the README and the docs, which say the optimizers follow
# PyTorch 1.13 to the last digit, must say PyTorch 2 for this one.
root=../..
flat() { tr '\n' ' ' < "$1" | tr -s ' '; }
flat $root/README.md | grep -o "opt.zero_grad()\` sets the gradients to \`None\` as PyTorch 2's does"
flat $root/docs/language.md | grep -o "One default is PyTorch 2's, not 1.13's"
$AG -e 'w = tensor([1.], requires_grad=True); opt = SGD([w], lr=0.1); backward(sum(w)); opt.zero_grad(); w.grad' 
$AG -e ':help' | grep -o "zero_grad(self.*"
