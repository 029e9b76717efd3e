# add's gradient passes to both inputs as one shared tensor and is summed
# down to each input's shape from it, never copied at the broadcast shape
# (issue 9, item 1). a (2000, 1) + b (1, 2000) is 32 MB; backward(sum(...))
# holds it and its gradient (64 MB): a copy per input would pass 72 MB.
# ones make the gradients exact: each entry is a sum of 2000 ones.
{ $AG --memory-limit 72M -e 'a = ones(2000, 1, grad)
b = ones(1, 2000, grad)
backward(sum(a + b))
sum(a.grad == 2000) + sum(b.grad == 2000)' 2>&1; echo "[exit $?]"; }
