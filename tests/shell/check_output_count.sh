# ag --check: a script that prints more than its expectations, or less,
# fails, and the report names the extra output or the expectation never
# met. (The wording of the report is not fixed; only what it must contain.)
c() { out=$($AG --check "$@" 2>&1); status=$?; echo "[exit $status]"; }
has() {
    if printf '%s\n' "$out" | grep -q -F -e "$1"; then echo "the report has: $1"
    else echo "the report lacks: $1"; fi
}
lacks() {
    if printf '%s\n' "$out" | grep -q -F -e "$1"; then echo "the report has (but should not): $1"
    else echo "the report does not have: $1"; fi
}
echo '--- the script prints more than expected'
c check_extra_output.inc
has 'check_extra_output.inc'
has 'tensor(4.)'
c check_extra_error.inc
has 'check_extra_error.inc'
has "unknown name 'nothere'"
echo '--- the script prints less than expected'
c check_missing_output.inc
has 'check_missing_output.inc:6'
has 'tensor(3.)'
lacks 'check_missing_output.inc:4'
