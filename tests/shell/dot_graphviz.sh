# :dot NAME prints the graph as Graphviz DOT; :dot NAME FILE writes it to
# FILE. Graphviz must accept what is written: when `dot` is installed it
# renders each file to SVG; without it the success line is printed anyway,
# so the expected output is the same on every machine.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-dot.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
diamond='a = tensor(3., grad); x = a * 2; z = x + x'
echo '--- :dot z: the diamond, x used twice (two edges into z), a leaf and a constant'
$AG -e "$diamond" -e ':dot z'; echo "[exit $?]"
echo '--- :dot NAME FILE writes the same text'
$AG -e "$diamond" -e ':dot z z.dot'; echo "[exit $?]"
$AG -e "$diamond" -e ':dot z' >stdout.dot
cmp -s z.dot stdout.dot && echo 'z.dot is what :dot z prints'
$AG -e 'xs = tensor([[1., 2.]], grad); w = ones(2, 3, grad); h = xs @ w' \
    -e 'y = sum(relu(h) * 2 + [1., 2., 3.]) + sum(h)' -e ':dot y y.dot' \
    -e 'c = tensor([1., 2.])' -e ':dot c c.dot' -e ':dot w w.dot' >/dev/null
echo "[exit $?]"
echo '--- y.dot: 7 Functions, 4 leaves and constants, 11 edges'
grep -c '^  f[0-9]* \[label=' y.dot
grep -c '^  t[0-9]* \[label=' y.dot
grep -c -e '->' y.dot
echo '--- Graphviz renders every file'
for f in z.dot y.dot c.dot w.dot; do
    if command -v dot >/dev/null 2>&1; then
        dot -Tsvg "$f" -o "$f.svg" && grep -q '<svg' "$f.svg" && echo "$f renders"
    else
        echo "$f renders"
    fi
done
echo '--- a file that cannot be written'
$AG -e "$diamond" -e ':dot z no/such/dir/z.dot' 2>&1 | grep -c "cannot write 'no/such/dir/z.dot'"
