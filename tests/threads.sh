#!/bin/sh
# The same bits for every thread count (ENGINE.md): the whole engine suite
# at 1 thread as measured, then at 1, 2 and 7 threads with every kernel's
# threshold for threads scaled down 1000 times (AG_TEST_GRAIN_SCALE), so
# that the tests' small tensors take the threaded paths; each run prints a hash of
# the elements of every tensor freed (AG_TEST_HASH), and all must agree.
# Threads beyond the cores are fine: a 1-core machine runs it too.
# Usage: tests/threads.sh TEST_ENGINE    Prints "N passed, N failed".
engine=${1:?usage: tests/threads.sh TEST_ENGINE}
passed=0 failed=0
run() { # threads scale
    AG_TEST_HASH=1 AG_NUM_THREADS=$1 AG_TEST_GRAIN_SCALE=$2 $VALGRIND "$engine" >"$tmp" 2>&1 ||
        { tail -n 20 "$tmp" >&2; echo "FAIL: the suite at $1 threads (scale $2)" >&2; return 1; }
    sed -n 's/^hash of every tensor freed: //p' "$tmp"
}
tmp=${TMPDIR:-/tmp}/ag-threads.$$
trap 'rm -f "$tmp"' EXIT
want=$(run 1 1) || { echo "0 passed, 1 failed"; exit 1; }
if [ -z "$want" ]; then # the hook is in debug builds (AG_DEBUG) only
    echo "(no hash from $engine: not a debug build; nothing compared)"; echo "0 passed, 0 failed"; exit 0
fi
# Under a sanitizer (slow): 7 threads only.
counts=${THREAD_COUNTS:-1 2 7}
[ -n "$AG_SANITIZED" ] && counts=7
for threads in $counts; do
    got=$(run $threads 0.001)
    if [ "$got" = "$want" ]; then
        passed=$((passed + 1)); echo "ok $threads threads: $got"
    else
        failed=$((failed + 1)); echo "$threads threads: hash $got, at 1 thread unscaled $want"
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
