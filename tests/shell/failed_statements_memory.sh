# What a failed statement recorded and dropped is released at once, not at
# the next backward (issue 9, "Memory the limit must cover": five failed
# statements pinned 40 MB while the message said 1 KB was waiting). Each
# statement below builds 8 MB intermediates that require grad, then fails;
# afterwards only x is live and no Function waits. ag --check goes on after
# errors; :mem's figures are read with awk.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-failed.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/failing.ag" <<'AG'
x = ones(1000000, grad)
y = sum(x * 2 * nope)
# expect error: unknown name 'nope'
y = sum(exp(x) * 2 + [1, 2])
# expect error: cannot broadcast
y = sum(x * 3 + x * 4 + nope)
# expect error: unknown name 'nope'
y = (x * 5)[2000000]
# expect error: out of range
y = sum(sigmoid(x) @ x @ x)
# expect error: matmul
:mem
AG
$AG --check "$tmp/failing.ag" |
    awk '/ expected / { print } / tensors: / { sub(/,/, "", $0); for (i = 1; i <= NF; i++) if ($i == "tensors:") print "live tensors:", $(i + 1) }
         / arena: / { for (i = 1; i <= NF; i++) if ($i == "arena:") print "waiting functions:", $(i + 1) }'
