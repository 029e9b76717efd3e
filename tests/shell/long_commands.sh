# Shell commands are never cut short (issue 9, item 5: they were cut at
# 1,023 bytes, so `:load LONG_PATH` could run another file and `:dot NAME
# LONG_PATH` write another one). A path of about 1,500 bytes is given to
# each; a decoy sits where the path cut at 1,023 bytes of the command line
# leads.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-long.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
d=dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd
dir=$d/$d/$d/$d/$d/$d/$d/$d/$d/$d/$d/$d/$d/$d/$d
mkdir -p "$dir"
printf 'print("the right file")\n' >"$dir/lib.ag"
echo "path of $(printf '%s' "$dir/lib.ag" | wc -c) bytes"
# ":load " is 6 bytes: 1,017 bytes of the path fit in 1,023.
cut=$(printf '%s' "$dir/lib.ag" | cut -c1-1017)
mkdir -p "$(dirname "$cut")"
printf 'print("a decoy")\n' >"$cut"
$AG -e ":load $dir/lib.ag"; echo "[exit $?]"
$AG -e 'x = tensor(2., grad); y = x * 3' -e ":dot y $dir/y.dot" >/dev/null; echo "[exit $?]"
[ -f "$dir/y.dot" ] && grep -c -e '->' "$dir/y.dot"
ls "$dir"
# A variable name of 150 bytes is named whole by :graph and :dot (they cut
# it at 63 bytes in the leaf's line and the graph's title).
n=$(printf '%0150d' 0 | tr 0 n)
$AG -e "$n = tensor(1., grad); y = $n * 2" -e ":graph $n" -e ":dot y" -e ":dot $n" |
    awk -v n="$n" '{ if (index($0, n)) whole++ } END { print whole " lines name it whole" }'
