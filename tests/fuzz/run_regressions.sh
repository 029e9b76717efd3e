#!/bin/sh
# Every input the fuzzer ever found a problem with, run through ./ag as a
# script: it must end with status 0 or 1 (an error message), never a crash,
# a sanitizer report or a hang. Prints "N passed, N failed" last.
# Usage: tests/fuzz/run_regressions.sh PATH_TO_AG
ag=${1:?usage: run_regressions.sh PATH_TO_AG}
passed=0 failed=0
for input in "$(dirname "$0")"/regressions/*; do
    [ -f "$input" ] || continue
    err=$( { timeout 20 $VALGRIND "$ag" - <"$input" >/dev/null; echo "status $?" >&2; } 2>&1 )
    status=$(printf '%s\n' "$err" | sed -n 's/^status //p' | tail -n 1)
    if { [ "$status" = 0 ] || [ "$status" = 1 ]; } &&
       ! printf '%s\n' "$err" | grep -q 'Sanitizer\|runtime error\|ERROR SUMMARY: [1-9]'; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL $(basename "$input"): status $status"
        printf '%s\n' "$err" | tail -n 5
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
