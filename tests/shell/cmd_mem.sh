# :mem shows live tensors and bytes and the arena (functions and bytes
# waiting for a backward). Byte counts depend on the build, so they are
# replaced by N; the number of waiting functions is kept when it is 0.
mem() {
    sed -E 's/[0-9]+ live/N live/; s/[0-9]+ bytes/N bytes/g; s/peak [0-9]+/peak N/; s/limit [0-9]+/limit N/;
            s/arena: +[1-9][0-9]* functions/arena:   N functions/; s/[0-9]+\.[0-9] MB/X MB/g'
}
echo '--- a fresh shell'
$AG -e ':mem' | mem
echo '--- a forward pass without backward waits in the arena'
$AG -e 'x = ones(3, grad)
y = sum(x * x)
:mem' | mem
echo '--- backward empties the arena'
$AG -e 'x = ones(3, grad)
y = sum(x * x)
backward(y)
:mem' | mem
echo '--- :reset empties it too'
$AG -e 'x = ones(3, grad)
y = sum(x * x)
:reset
:mem' | mem
echo '--- rebinding a name releases the old value'
$AG -e 'x = ones(100000)
:mem
x = 1
:mem' | awk '/^tensors:/ { sub(/,/, "", $4); bytes[++n] = $4 }
    END { print (n == 2 && bytes[2] + 700000 < bytes[1]) ? "released" : "not released" }'
echo '--- waiting functions are counted'
$AG -e 'x = ones(3, grad)
a = x * 2
:mem
b = a * 2
c = b * 2
:mem' | awk '/^arena:/ { f[++n] = $2 } END { print (n == 2 && f[1] > 0 && f[2] > f[1]) ? "more functions wait" : "no change" }'
