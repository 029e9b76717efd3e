# A script of a million lines runs in bounded memory: its statements are
# read, run and forgotten one at a time (a backward every 1,000 lines frees
# the graph). :mem reports the process's peak resident memory.
[ -n "$AG_SANITIZED" ] && exit 77 # a sanitizer's memory is not ag's
echo '--- a million lines run in bounded memory'
awk 'BEGIN { print "x = tensor([1., 2.], grad)";
             for (i = 0; i < 1000000; i++) print (i % 1000 == 999) ? "backward(sum(x * 2)) ; zero_grad()" : "y = x * 2";
             print ":mem" }' | $AG - 2>&1 |
    awk '/^process:/ { at_most = $6 } END { print (at_most > 0 && at_most < 100) ? "peak memory under 100 MB" : "peak memory " at_most " MB" }'
