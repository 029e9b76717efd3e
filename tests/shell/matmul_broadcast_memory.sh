# A matrix product with a broadcast batch dimension: b (1000, 1000) is used
# by each of a's 1000 batch entries. Its gradient is summed over them
# inside matmul's backward, never built as (1000, 1000, 1000) (8 GB) and
# then reduced, so backward runs within a 100 MB limit. ones make the
# gradients exact: each entry of a.grad and b.grad is a sum of 1000 ones.
{ $AG --memory-limit 100M -e 'a = ones(1000, 1, 1000, grad)
b = ones(1000, 1000, grad)
backward(sum(a @ b))
:mem' 2>&1; echo "[exit $?]"; } |
    awk '/^tensors:/ { sub(/;/, "", $7); sub(/\)/, "", $9)
                       print ($7 + 0 <= $9 + 0) ? "peak within the limit" : "peak over the limit"; next }
         /^(arena|cache|process):/ { next } { print }'
