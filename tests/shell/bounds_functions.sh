# Function bodies count against the memory limit (issue 9, "Memory the
# limit must cover": 20 one-megabyte definitions took 1.6 GB under
# --memory-limit 10M). Every syntax tree (a statement being run, a user
# function's body) counts with the tensors and the graph; a definition that
# does not fit is refused with a message. :mem reports the peak resident
# memory. The line where 200 small definitions reach the limit depends on
# the size of the tree's nodes: it is shown as L, and columns as C.
[ -n "$AG_SANITIZED" ] && exit 77 # a sanitizer's memory is not ag's
peak() {
    awk '/^process:/ { at_most = $6; next } /^(tensors|arena|cache):/ { next } { print }
         END { if (at_most) print (at_most < 100) ? "peak memory under 100 MB" : "peak memory " at_most " MB" }'
}
echo '--- 20 definitions of 1 MB under a 10 MB limit: the first is refused'
awk 'BEGIN { for (k = 0; k < 20; k++) { printf "f%d(a) { ", k; for (i = 0; i < 100000; i++) printf "a = a + 1; "; print "return a }" } }' |
    { $AG --memory-limit 10M - 2>&1; echo "[exit $?]"; } | sed -E 's/^(<stdin>:1):[0-9]+:/\1:C:/'
echo '--- 200 definitions of 11 KB under 20 MB: refused once they fill it'
awk 'BEGIN { for (k = 0; k < 200; k++) { printf "f%d(a) { ", k; for (i = 0; i < 1000; i++) printf "a = a + 1; "; print "return a }" } }' |
    { $AG --memory-limit 20M - 2>&1; echo "[exit $?]"; } | sed -E 's/^<stdin>:[0-9]+:[0-9]+:/<stdin>:L:C:/'
echo '--- within the limit they run, and :mem says how much the process took'
awk 'BEGIN { for (k = 0; k < 10; k++) { printf "f%d(a) { ", k; for (i = 0; i < 1000; i++) printf "a = a + 1; "; print "return a }" }
             print "f9(f0(0))"; print ":mem" }' |
    { $AG --memory-limit 20M - 2>&1; echo "[exit $?]"; } | peak
