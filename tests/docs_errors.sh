#!/bin/sh
# Runs the examples of the Errors table in docs/language.md, so that the
# messages the documentation shows cannot drift from what ag prints. Each
# row `| kind | `INPUT` | `MESSAGE` |` is run as `ag -e INPUT`; it passes
# when ag exits with status 1 and its error reads "error: MESSAGE..." (the
# message shown, at least: it may go on). `\|` in a cell stands for `|`.
# Usage: tests/docs_errors.sh PATH_TO_AG [FILE.md]
#        (VALGRIND="valgrind ..." to run under it)
# Prints "N passed, N failed" last.
[ $# -ge 1 ] || { echo "usage: tests/docs_errors.sh PATH_TO_AG [FILE.md]" >&2; exit 2; }
AG="$VALGRIND $1"
doc=${2:-$(dirname "$0")/../docs/language.md}
[ -r "$doc" ] || { echo "cannot read $doc"; echo "0 passed, 1 failed"; exit 1; }
tmp=${TMPDIR:-/tmp}/ag-docs-errors.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

# The rows of the table in the section "## Errors", as two lines each:
# the input, then the message. Rows whose cells are not both one code span
# (the header, the |---| line) are not examples.
awk '
/^## / { inside = ($0 == "## Errors"); next }
!inside || !/^\|/ { next }
{
    line = $0
    gsub(/\\\|/, "\001", line)          # an escaped | is no cell border
    n = split(line, cell, "|")
    if (n < 5) next
    input = cell[3]; message = cell[4]
    sub(/^ *`/, "", input); sub(/` *$/, "", input)
    sub(/^ *`/, "", message); sub(/` *$/, "", message)
    if (input == cell[3] || message == cell[4]) next   # not code spans
    gsub(/\001/, "|", input); gsub(/\001/, "|", message)
    print input; print message
}' "$doc" >"$tmp/rows"

passed=0 failed=0
while IFS= read -r input && IFS= read -r message; do
    $AG -e "$input" >"$tmp/out" 2>"$tmp/err" </dev/null
    status=$?
    if [ "$status" -eq 1 ] && grep -F -e "error: $message" "$tmp/err" >/dev/null; then
        passed=$((passed + 1))
        echo "ok $input"
    else
        failed=$((failed + 1))
        echo "FAIL $input"
        echo "  expected (exit 1): error: $message"
        echo "  got (exit $status): $(cat "$tmp/err")"
    fi
done <"$tmp/rows"

if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
    echo "FAIL: no examples found in the Errors table of $doc"
    failed=1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
