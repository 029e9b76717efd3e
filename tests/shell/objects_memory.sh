# 300,000 live objects of two attributes each, and a loop making as many
# short-lived ones that each hold themselves (self.me = self), fit in a
# 256 MB address space: an object's dict starts with room for four entries
# and its class remembers how many its objects end up with, and the young
# pass of the collector frees the cycles without walking the 300,000.
# (Before: 8 entries each, and 281 MB at the peak.) Under the sanitizers
# (whose shadow memory needs no such limit) 3,000.
tmp=${TMPDIR:-/tmp}/ag-objects-memory.$$
trap 'rm -f "$tmp.py"' EXIT
n=300000
[ -n "$AG_SANITIZED" ] && n=3000
cat >"$tmp.py" <<PY
class N:
    def __init__(self, v):
        self.v = v
        self.me = self
keep = [N(i) for i in range($n)]
def churn():
    t = 0
    for i in range($n):
        t += N(i).v
    return t
print(churn() == sum(n.v for n in keep), len(keep) == $n)
PY
if [ -n "$AG_SANITIZED" ]; then
    $AG "$tmp.py" 2>&1
else
    (ulimit -v 262144 && $AG "$tmp.py" 2>&1)
fi
echo "[exit $?]"
