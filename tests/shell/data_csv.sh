# load_csv and save_csv: numbers separated by commas or blanks, a header
# line skipped, blank lines skipped; a value written by save_csv reads back
# exactly (shortest round-trip digits, -0, inf and nan included); errors
# name the file, the line and the column.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-csv.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
e() { out=$($AG -e "$1" 2>&1); st=$?; printf '%s\n' "$out" | sed "s|$tmp|TMP|g"; echo "[exit $st]"; }
printf 'x,y,label\n1,2,3\n4.5, -6 ,7e-3\n\n-inf,nan,0\n' >"$tmp/a.csv"
printf '1 2 3\n  4  5 6\n' >"$tmp/blanks.csv"
printf '1,2\n3,4,5\n' >"$tmp/ragged.csv"
printf '1,2\n3,x\n' >"$tmp/field.csv"
printf 'a,b\n' >"$tmp/header_only.csv"
printf '1,2\n,3\n' >"$tmp/empty_field.csv"
e "load_csv('$tmp/a.csv')"
e "load_csv('$tmp/blanks.csv')"
e "x = tensor([0.1, 1/3, 2e-308, 5e-324, -0.0, 1e22, inf, nan]); save_csv(x, '$tmp/b.csv'); y = load_csv('$tmp/b.csv').reshape(8); print((y == x) + (y != y))"
cat "$tmp/b.csv"
e "save_csv(tensor([[1, 2.5], [3, 4]]), '$tmp/c.csv'); load_csv('$tmp/c.csv')"
cat "$tmp/c.csv"
e "load_csv('$tmp/ragged.csv')"
e "load_csv('$tmp/field.csv')"
e "load_csv('$tmp/header_only.csv')"
e "load_csv('$tmp/empty_field.csv')"
e "load_csv('$tmp/missing.csv')"
e "load_csv('$tmp')"
e "save_csv(zeros(2, 2, 2), '$tmp/d.csv')"
e "save_csv(zeros(2), '$tmp/no/such/dir.csv')"
e "load_csv(3)"
