# load_csv on files that are not what they seem: a NUL byte in a field is
# an error naming its line and column (it was read as the number before
# it); numbers of any length are read as Python's float() reads them, and
# a first line with a number in it is data, never a header; a line is
# bounded (/dev/zero ends with an error, not in memory); bytes of the file
# shown in a message are escaped (an escape sequence never reaches the
# terminal raw).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-csv.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
e() { out=$($AG "$@" 2>&1); st=$?; printf '%s\n' "$out" | sed "s|$tmp|TMP|g"; echo "[exit $st]"; }
printf '1,2\n3,4\0001\n' >"$tmp/nul.csv"
printf '5\000,6\n' >"$tmp/nul_first.csv"
printf '1 2\n3 \0009\n' >"$tmp/nul_blanks.csv"
long=0.$(printf '%0100d' 0)1
printf '%s,2\n3,%s5\n' "$long" "$long" >"$tmp/long.csv"
printf 'x,y\n%s,1e-400\n' "$long" >"$tmp/long_header.csv"
printf '1,2,x\n3,4,5\n' >"$tmp/mixed_first.csv"
printf 'a,b\n1,2\n3,\033[31mred\033[0m\n' >"$tmp/escape.csv"
printf 'a,b\n1,\001x\n' >"$tmp/escape_field.csv"
e -e "load_csv('$tmp/nul.csv')"
e -e "load_csv('$tmp/nul_first.csv')"
e -e "load_csv('$tmp/nul_blanks.csv')"
e -e "x = load_csv('$tmp/long.csv'); print(x[0, 0] == 1e-101, x[1, 1] == 1.5e-101)"
e -e "load_csv('$tmp/long_header.csv')"
e -e "load_csv('$tmp/mixed_first.csv')"
e -e "load_csv('$tmp/escape.csv')"
e -e "load_csv('$tmp/escape_field.csv')"
e --memory-limit 100M -e "load_csv('/dev/zero')"
