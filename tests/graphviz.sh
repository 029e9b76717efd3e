#!/bin/sh
# make test-graphviz: the pictures, where Graphviz is installed (apt-get
# install graphviz); it says it skipped them otherwise. Graphviz's dot
# parses the DOT text of the golden tests, :dot FILE.svg and draw(y) write
# SVG that an XML parser accepts (python3's xml.etree, or xmllint), PNG is
# a PNG, and a dot that fails leaves no file behind, half-written or not.
# Usage: tests/graphviz.sh PATH_TO_AG
ag=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v dot >/dev/null 2>&1; then
    echo "make test-graphviz skipped: it needs Graphviz's dot (apt-get install graphviz)"
    exit 0
fi
if /usr/bin/python3 -c 'import xml.etree.ElementTree' 2>/dev/null; then
    xml_ok() { /usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1"; }
elif command -v xmllint >/dev/null 2>&1; then
    xml_ok() { xmllint --noout "$1"; }
else
    echo "make test-graphviz skipped: it needs python3 or xmllint to parse the SVG"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-graphviz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
passed=0 failed=0
check() { # what, then a command that succeeds when it holds
    what=$1; shift
    if "$@" >/dev/null 2>&1; then passed=$((passed + 1)); echo "ok $what"
    else failed=$((failed + 1)); echo "FAIL $what"; fi
}
lecture='a = tensor(2., grad); b = tensor(-3., grad); c = tensor(10., grad); e = a * b; d = e + c; f = tensor(-2., grad); L = d * f'

# The golden DOT text, each digraph of it, through dot -Tsvg.
awk '/^digraph/ { n++; f = "golden" n ".dot" } f { print > f } /^}/ { f = "" }' \
    "$here/shell/dot_snapshot.out"
for f in golden*.dot; do
    check "dot -Tsvg parses $f of tests/shell/dot_snapshot.out" dot -Tsvg "$f" -o "$f.svg"
    check "its SVG is XML" xml_ok "$f.svg"
done

"$ag" -e "$lecture" -e 'backward(L)' -e ':dot out.svg' -e ':dot L named.png' >ag.txt 2>&1
check ":dot out.svg says where" grep -qx 'wrote out.svg' ag.txt
check ":dot out.svg writes SVG an XML parser accepts" xml_ok out.svg
check ":dot L named.png writes a PNG" sh -c 'head -c 8 named.png | od -An -c | grep -q "P   N   G"'
"$ag" -e "$lecture" -e 'draw(L)' -e 'backward(L)' -e 'draw(L, "after.svg")' >draw.txt 2>&1
check "draw(L) writes graph.svg and says where" grep -q '^wrote graph.svg' draw.txt
check "graph.svg is XML" xml_ok graph.svg
check "after backward, draw's picture has the grads" grep -q 'grad 6.0000' after.svg
check "and is XML" xml_ok after.svg

# A dot that fails: no file, and no temporary file, is left.
mkdir fake && printf '#!/bin/sh\nexit 3\n' >fake/dot && chmod +x fake/dot
PATH="$tmp/fake:$PATH" "$ag" -e "$lecture" -e 'backward(L)' -e ':dot broken.svg' >broken.txt 2>&1
check "a failing dot: one clear line" grep -q "dot could not render the graph" broken.txt
check "and no file, whole or half" sh -c '! ls broken.svg* >/dev/null 2>&1'
# No dot at all: what to install.
PATH=/nonexistent "$ag" -e "$lecture" -e 'backward(L)' -e ':dot none.svg' >none.txt 2>&1
check "no dot: it says what to install" grep -q 'apt-get install graphviz' none.txt
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
