# Lines of 1 MiB work (a comment, a list literal, a name); a flat chain of
# 1 MiB is refused with a clear error (never a crash).
# Generated with awk: no files, no Python.
p() { $AG - 2>&1; echo "[exit $?]"; }
echo '--- a 1 MiB comment, then a statement'
awk 'BEGIN { s = "x"; for (i = 0; i < 20; i++) s = s s; print "#" s; print "1 + 1" }' | p
echo '--- a 1 MiB list literal'
awk 'BEGIN { n = 349525; printf "x = ["; for (i = 1; i < n; i++) printf "1, "; print "1]";
             print "numel(x)"; print "sum(x)"; print "x.shape" }' | p
echo '--- a 1 MiB name'
awk 'BEGIN { s = "a"; for (i = 0; i < 20; i++) s = s s; print s " = 2"; print s " * 3" }' | p
echo '--- a 1 MiB sum of ones'
awk 'BEGIN { n = 349525; for (i = 1; i < n; i++) printf "1+"; print "1" }' | p
