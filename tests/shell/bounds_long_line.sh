# One line of a million statements (11 MB) runs in the memory of one
# statement (issue 9, "Memory the limit must cover": it took 673 MB, the
# whole line's syntax tree built at once to see whether it was complete).
# :mem reports the process's peak resident memory.
[ -n "$AG_SANITIZED" ] && exit 77 # a sanitizer's memory is not ag's
echo '--- x = x + 1; a million times on one line'
awk 'BEGIN { print "x = 0"; for (i = 0; i < 1000000; i++) printf "x = x + 1; "; print ""; print "x"; print ":mem" }' |
    $AG --memory-limit 10M - 2>&1 |
    awk '/^process:/ { at_most = $6; next } /^(tensors|arena|cache):/ { next } { print }
         END { print (at_most > 0 && at_most < 100) ? "peak memory under 100 MB" : "peak memory " at_most " MB" }'
