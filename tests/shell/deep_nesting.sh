# Deep nesting gives a clear error, never a crash; moderate nesting works.
p() { $AG - 2>&1; echo "[exit $?]"; }
nest() { awk -v n="$1" -v op="$2" -v mid="$3" -v cl="$4" 'BEGIN {
    for (i = 0; i < n; i++) printf "%s", op; printf "%s", mid
    for (i = 0; i < n; i++) printf "%s", cl; print "" }'; }
echo '--- 100 parentheses'
nest 100 '(' 1 ')' | p
echo '--- 100000 parentheses'
nest 100000 '(' 1 ')' | p
echo '--- 100000 brackets'
nest 100000 '[' 1 ']' | p
echo '--- 100000 unary minus signs'
nest 100000 '-' 1 '' | p
echo '--- 150 nested calls'
nest 150 'exp(' 0 ')' | p
echo '--- 100000 nested calls'
nest 100000 'exp(' 0 ')' | p
echo '--- 100000 parentheses never closed'
nest 100000 '(' 1 '' | p
