# Every resource bound, each with its message, and the shell going on (or a
# script ending with status 1) rather than crashing or swapping.
p() { $AG "$@" 2>&1; echo "[exit $?]"; }
echo '--- the memory limit: --memory-limit and $AG_MEMORY_LIMIT'
p --memory-limit 1M -e 'x = zeros(1000, 1000)'
AG_MEMORY_LIMIT=64K p -e 'x = zeros(10000)'
AG_MEMORY_LIMIT=64K p --memory-limit 1G -e 'x = zeros(10000); numel(x)'
p --memory-limit lots -e '1' | sed -n '1p;$p'
AG_MEMORY_LIMIT=-5 p -e '1'
echo '--- the limit counts the graph waiting for a backward'
awk 'BEGIN { print "y = ones(1000, grad)"; for (i = 0; i < 200; i++) print "y = y * 1.5" }' |
    p --memory-limit 1M - | sed -E 's/[0-9]+ bytes hold/N bytes hold/; s/, [0-9]+ of the/, N of the/'
echo '--- a line over 16 MiB'
awk 'BEGIN { s = "1"; for (i = 0; i < 24; i++) s = s s; print s "1"; print "2 + 2" }' | p -
echo '--- a statement over 16 MiB (a bracket never closed)'
awk 'BEGIN { print "x = ["; s = "1, "; for (i = 0; i < 17; i++) s = s s;
             for (i = 0; i < 50; i++) print s }' | p -
echo '--- 100,000 variables, then one more'
awk 'BEGIN { for (i = 0; i < 100000; i++) print "v" i " = " i; print "v100000 = 1" }' | p -
