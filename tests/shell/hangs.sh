# Inputs that used to hang (issue 9, "Hangs"): each must end, at once, with
# a message. A file or stdin with no newline stops at the 16 MiB line limit
# (/dev/zero spun forever); softmax, log_softmax and the reductions of a
# tensor with no elements but 10^18 empty lanes do no work per lane (they
# looped over every one). timeout turns a hang into a failure.
p() { timeout 20 "$@" 2>&1; echo "[exit $?]"; }
echo '--- /dev/zero as a script, as stdin, by :load and by --check'
p $AG /dev/zero
p $AG - </dev/zero
p $AG -e ':load /dev/zero'
p $AG --check /dev/zero
echo '--- 20 MB with no newline at all'
head -c 20000000 /dev/zero | tr '\0' 'x' | p $AG -
echo '--- 10^18 empty lanes'
p $AG -e 'softmax(zeros(1e18, 0))
log_softmax(zeros(1e18, 0))
softmax(zeros(0, 1e18), 0)
mean(zeros(1e18, 0), 0)
sum(zeros(1e18, 0), 0)
logsumexp(zeros(1e18, 0), 0)
x = zeros(1e18, 0, grad)
backward(sum(softmax(x)) + sum(log_softmax(x, 0)) + sum(mean(x, 0)))
x.grad.shape'
