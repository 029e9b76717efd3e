# ag --check tells errors from output out of band (the error stream), not
# by reading the text: a printed line that contains ": error: " is output,
# and "# expect error:" is not met by it (it passed when nothing failed).
# The output is compared as it is printed, not held: a script printing
# 100 MB runs under a memory limit far below that (ulimit -v).
tmp=${TMPDIR:-/tmp}/ag-check-oob.$$
mkdir -p "$tmp" && trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/fake.ag" <<'AG'
print("x.ag:1:1: error: not really")  # expect error: not really
AG
cat >"$tmp/printed.ag" <<'AG'
print("a: error: b")
# expect: a: error: b
1 / "x"  # expect error: is a string
AG
awk 'BEGIN { print "x = zeros(1000)"; print "for i in range(25000) { print(x) }";
             print "# expect: never" }' >"$tmp/big.ag"
cd "$tmp" || exit 1
$AG --check fake.ag; echo "[exit $?]"
$AG --check printed.ag; echo "[exit $?]"
[ -n "$AG_SANITIZED" ] && exit 77 # address space limits and sanitizers do not mix
(ulimit -v 150000; $AG --check big.ag | tail -2)
