# A statement continued over 200,000 lines is read in linear time (issue 9,
# "Quadratic paths": one of 20,000 lines took 11 s, each line parsing the
# whole statement again; this size would take hours so). A block and a
# list literal, each under timeout 20. A list of numbers over more than
# 64 lines was refused ("too many items") before its end was read.
p() { timeout 20 $AG - 2>&1; echo "[exit $?]"; }
echo '--- a block of 200,000 lines'
awk 'BEGIN { print "n = 0"; print "if True {"; for (i = 0; i < 200000; i++) print "  n = n + 1"; print "}"; print "n" }' | p
echo '--- a list literal of 200,000 lines'
awk 'BEGIN { print "x = ["; for (i = 0; i < 200000; i++) print "  " i % 7 ","; print "]"; print "numel(x)"; print "sum(x)" }' | p
echo '--- 65 lines of numbers, then an unclosed list'
awk 'BEGIN { print "x = ["; for (i = 0; i < 65; i++) print "1,"; print "1]"; print "numel(x)"; print "y = [1,"; print "2," }' | p
