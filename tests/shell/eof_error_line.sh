# A syntax error at the end of the input is reported on the last line (at
# its end), as Python does, with or without a final newline (issue 22
# item 18: a one-line file without one said line 2).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-eof-line.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
p() { { $AG "$@" 2>&1; echo "[exit $?]"; } | sed "s|$tmp/||"; }
for text in 'if 1:' 'if 1:\n' 'x = 1\nwhile x:' 'if 1:\n\n# a comment\n' 'def f(x):'; do
    echo "--- $text"
    printf "$text" >"$tmp/t.ag"; p "$tmp/t.ag"
    printf "$text" >"$tmp/t.py"; p "$tmp/t.py"
    printf "$text" | p -
done
