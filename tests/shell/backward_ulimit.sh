# backward when malloc itself fails (issue 9, item 1: under a tight
# `ulimit -v` it ended in abort(), with stdout unflushed): the usual message
# and status 1, and what was printed before is there. 160 MB of address
# space: the forward (A and A * A, 48 MB each) fits, backward's gradients
# do not. (tests/engine/test_backward.c fails each allocation of a backward
# in turn and checks that every .grad is left as it was.)
[ -n "$AG_SANITIZED" ] && exit 77 # a sanitizer reserves terabytes of address space
( ulimit -v 160000 && $AG -e 'print("printed before")
A = ones(2000, 3000, grad)
y = sum(A * A)
backward(y)
print("never")' 2>&1; echo "[exit $?]" )
