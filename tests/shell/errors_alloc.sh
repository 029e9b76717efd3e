# Allocations too large are refused before allocating (quickly, without
# touching memory), overflow of the element count included. The free and
# limit byte counts depend on the build, so they are replaced by N.
e() {
    out=$($AG -e "$1" 2>&1)
    status=$?
    printf '%s\n' "$out" | sed -E 's/[0-9]+ of the [0-9]+-byte/N of the N-byte/'
    echo "[exit $status]"
}
e 'zeros(100000000000, 100000000000)'
e 'ones(4294967296, 4294967296)'
e 'full(1, 3037000500, 3037000500)'
e 'randn(65536, 65536, 65536, 65536)'
e 'zeros(1e12)'
e 'ones(100000, 100000)'
e 'rand(1e9)'
e 'eye(1e7)'
e 'eye(4294967296)'
e 'arange(1e15)'
e 'linspace(0, 1, 1e15)'
e 'ones(100000, 1) @ ones(1, 100000)'
e 'ones(100000, 1) + ones(1, 100000)'
e 'reshape(ones(2), 4294967296, -1)'
e 'x = ones(3); x'
