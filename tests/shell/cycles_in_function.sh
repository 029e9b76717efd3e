# Cycles made inside a running function are collected as it runs, not when
# it returns: micrograd's Value keeps its _backward closure, which holds the
# Value (out -> _backward -> out), and a training loop inside def main()
# made 200,000 of them. Under a 256 MB address-space limit, where keeping
# them (4 KB each) would run out; under the sanitizers 5,000, LeakSanitizer
# checking the rest. Also: a list only C holds while a loop runs over it
# (the census must count it as held) survives the collections the loop's
# own garbage sets off.
tmp=${TMPDIR:-/tmp}/ag-cycles-fn.$$
trap 'rm -f "$tmp.py"' EXIT
n=200000
[ -n "$AG_SANITIZED" ] && n=5000
cat >"$tmp.py" <<PY
class V:
    def __init__(self, data):
        self.data = data
        self._backward = lambda: None
    def __add__(self, other):
        out = V(self.data + other.data)
        def _backward():
            self.data, other.data, out.data
        out._backward = _backward
        return out
def make(n):
    return [V(float(i)) for i in range(n)]
def main():
    total = 0.0
    for v in make(3):
        for i in range($n // 3):
            last = (v + v).data
        total += last
    return total
print(main())
PY
if [ -n "$AG_SANITIZED" ]; then
    $AG "$tmp.py" 2>&1
else
    (ulimit -v 262144 && $AG "$tmp.py" 2>&1)
fi
echo "[exit $?]"
