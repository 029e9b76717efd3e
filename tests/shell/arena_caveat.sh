# The arena caveat, at scale: 100,000 forward passes with no backward. The
# shell says so as the graph grows (notes at 1,000, 10,000 and 100,000
# nodes), and :reset, or the next backward, returns the memory, measured by
# :mem (the graph, the live tensors, and the process's resident memory).
[ -n "$AG_SANITIZED" ] && exit 77 # a sanitizer's memory is not ag's
script() {
    awk 'BEGIN { print "y = tensor([1., 2.], grad)"; print ":mem";
                 for (i = 0; i < 100000; i++) print "y = y * 1.0001"; print ":mem" }'
    echo "$1"
    echo ':mem'
}
summary() {
    awk '/^note:/ { print "note: " $2 " graph nodes are waiting" }
         /^arena:/ { print "arena: " $2 " functions" }
         /^tensors:/ { print "tensors: " $2 " live" }
         /^process:/ { rss[++n] = $2 }
         END { print (rss[3] < rss[2] / 2) ? "memory returned" : "memory kept: " rss[2] " then " rss[3] " MB" }'
}
echo '--- :reset'
script ':reset' | $AG - 2>&1 | summary
echo '--- the next backward'
script 'backward(sum(y)) ; zero_grad()' | $AG - 2>&1 | summary
echo '--- graphs whose values all died go before a note: none is printed'
awk 'BEGIN { print "y = tensor([1., 2.], grad)"; for (i = 0; i < 100000; i++) print "h = y * 1.0001";
             print ":mem" }' | $AG - 2>&1 | summary | sed '$d'
echo '--- a custom Function applied and dropped 3,000 times: its graphs go too (no note)'
f="${TMPDIR:-/tmp}/ag-arena-$$.py"
cat > "$f" <<'PY'
import torch
class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 2
x = torch.ones(3, requires_grad=True)
for i in range(3000):
    y = Double.apply(x)
print(y)
PY
$AG "$f" 2>&1
rm -f "$f"
