#!/bin/sh
# Every input the fuzzer ever found a problem with, run through ./ag as a
# script: it must end with status 0, or 1 with an error message, never a crash,
# a sanitizer report or a hang. NAME.ag runs as `ag - <NAME.ag`; NAME.py
# twice, as `ag NAME.py` (compiled whole, then run) and as
# `ag --python - <NAME.py` (read line by line). Prints "N passed, N failed" last.
# Usage: tests/fuzz/run_regressions.sh PATH_TO_AG
ag=${1:?usage: run_regressions.sh PATH_TO_AG}
passed=0 failed=0

# check NAME INPUT AG_ARGS...: runs ag with AG_ARGS, stdin from INPUT.
check() {
    name=$1 input=$2; shift 2
    err=$( { timeout 20 $VALGRIND "$ag" "$@" <"$input" >/dev/null; echo "status $?" >&2; } 2>&1 )
    status=$(printf '%s\n' "$err" | sed -n 's/^status //p' | tail -n 1)
    messages=$(printf '%s\n' "$err" | grep -vc '^status ')
    if { [ "$status" = 0 ] || { [ "$status" = 1 ] && [ "$messages" -gt 0 ]; }; } &&
       ! printf '%s\n' "$err" | grep -q 'Sanitizer\|runtime error\|ERROR SUMMARY: [1-9]'; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL $name: status $status"
        printf '%s\n' "$err" | tail -n 5
    fi
}

for input in "$(dirname "$0")"/regressions/*; do
    [ -f "$input" ] || continue
    name=$(basename "$input")
    case $name in
        *.py) check "$name (as a file)" /dev/null "$input"
              check "$name (--python, line by line)" "$input" --python - ;;
        *)    check "$name" "$input" - ;;
    esac
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
