# Counts past 2^60 (exact integers in a double) are too many elements to
# allocate, like any other overflow: the message must not claim they are
# not non-negative integers.
e() { $AG -e "$1" 2>&1; echo "[exit $?]"; }
e 'linspace(0, 1, 2305843009213693952)'
e 'zeros(2305843009213693952)'
e 'ones(2, 2305843009213693952)'
e 'eye(2305843009213693952)'
