# :dot of a large graph (issue 9, "Quadratic paths"): past 4,096 leaves it
# drew edges from undeclared nodes and dropped the leaves, and a linear
# search for each node's label made 200,000 nodes take 25 s. Here 100,000
# Functions and 100,001 leaves (x and a constant per step): every node is
# declared once, every edge joins declared nodes, and it takes well under
# the timeout (a quadratic search would not).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-dot.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
timeout 20 $AG -e 'x = tensor(1., grad)
c = x
for i in range(100000) { c = c * 1.00001 }
:dot c big.dot' 2>/dev/null
echo "[exit $?]"
awk '/ \[label=/ { if ($1 in declared) twice++; declared[$1] = 1
                  if ($1 ~ /^f/) f++; else t++ }
     / -> / { edges++; to = $3; sub(/;$/, "", to); if (!($1 in declared) && !($1 in later)) later[$1] = 1
              if (!(to in declared)) undeclared_to++ }
     END { for (n in later) if (!(n in declared)) undeclared_from++
           print f " Functions, " t " leaves and constants, " edges " edges"
           print (twice + 0) " declared twice, " (undeclared_from + undeclared_to) " edge ends never declared" }' big.dot
