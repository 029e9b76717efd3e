# A block of more than 100 lines (past which the bracket depth, not the
# parser, decides when a statement is complete) ends at its closing '}':
# the ':command' and the statements after it run, from a file and from a
# pipe. Likewise a long indented (Python) block in a .ag script.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-long-block.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN { print "if 1 {"; for (i = 1; i <= 105; i++) print "    a = " i
             print "    b = (1 +"; print "         2)"; print "}"; print ":vars"; print "print(a + b)" }' \
    >"$tmp/braces.ag"
awk 'BEGIN { print "if 1:"; for (i = 1; i <= 105; i++) print "    a = " i
             print "    b = [1,"; print "         2]"; print ":vars"; print "print(a)" }' \
    >"$tmp/indented.ag"
awk 'BEGIN { print "if 1 {"; printf "    # "; for (i = 0; i < 70000; i++) printf "x"
             print ""; print "    c = 3"; print "}"; print ":vars"; print "print(c)" }' >"$tmp/wide.ag"
echo "--- braces, a file"
{ $AG "$tmp/braces.ag" 2>&1; echo "[exit $?]"; } | sed "s|$tmp/||"
echo "--- braces, a pipe"
{ $AG <"$tmp/braces.ag" 2>&1; echo "[exit $?]"; } | sed "s|$tmp/||"
echo "--- indented, a file"
{ $AG "$tmp/indented.ag" 2>&1; echo "[exit $?]"; } | sed "s|$tmp/||"
echo "--- indented, a pipe"
{ $AG <"$tmp/indented.ag" 2>&1; echo "[exit $?]"; } | sed "s|$tmp/||"
echo "--- braces, 64 KiB in 4 lines"
{ $AG "$tmp/wide.ag" 2>&1; echo "[exit $?]"; } | sed "s|$tmp/||"
