#!/bin/sh
# Golden tests of the shell. Each test is NAME.ag (run as `ag NAME.ag`) or
# NAME.sh (a script run with $AG set, for pipes, -e and options), with
# beside it NAME.out (expected stdout), and when not empty or 0, NAME.err
# (expected stderr) and NAME.status (expected exit status). A .sh test that
# exits 77 is skipped (it measures what a sanitizer or valgrind distorts:
# AG_SANITIZED is set for those builds).
# Usage: tests/shell/run.sh PATH_TO_AG [NAME...]   (VALGRIND="valgrind ..." to run under it)
# With NAMEs, only those tests (make test T=NAME: tests/one.sh).
# Prints "N passed, N failed, N skipped" last.
ag=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
only=" $* "
cd "$(dirname "$0")" || exit 2
AG="$VALGRIND $ag"
export AG
passed=0 failed=0 skipped=0
tmp=${TMPDIR:-/tmp}/ag-golden.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

for test in *.ag *.sh; do
    [ -f "$test" ] || continue
    [ "$test" = run.sh ] && continue
    name=${test%.*}
    case $only in "  "|*" $name "*) ;; *) continue ;; esac
    case $test in
        *.ag) [ -f "$name.sh" ] && continue   # input of a .sh test
              $AG "$test" >"$tmp/out" 2>"$tmp/err" </dev/null ;;
        *.sh) sh "$test" >"$tmp/out" 2>"$tmp/err" </dev/null ;;
    esac
    status=$?
    if [ "$status" = 77 ] && [ "${test%.sh}" != "$test" ]; then
        skipped=$((skipped + 1)); echo "skip $name"; continue
    fi
    expected_status=0
    [ -f "$name.status" ] && expected_status=$(cat "$name.status")
    [ -f "$name.err" ] && cp "$name.err" "$tmp/want_err" || : >"$tmp/want_err"
    ok=1
    if ! cmp -s "$tmp/out" "$name.out"; then
        ok=0; echo "FAIL $name: stdout differs (expected < > got)"
        diff "$name.out" "$tmp/out" | head -n 20
    fi
    if ! cmp -s "$tmp/err" "$tmp/want_err"; then
        ok=0; echo "FAIL $name: stderr differs (expected < > got)"
        diff "$tmp/want_err" "$tmp/err" | head -n 20
    fi
    if [ "$status" != "$expected_status" ]; then
        ok=0; echo "FAIL $name: exit status $status, expected $expected_status"
    fi
    if [ $ok = 1 ]; then passed=$((passed + 1)); echo "ok $name"; else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
