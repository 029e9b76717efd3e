# ag --check: a value printed over several lines is matched one line per
# expectation, spaces included; a wrong line is reported by its own line
# number. (The wording of the report is not fixed.)
c() { out=$($AG --check "$@" 2>&1); status=$?; echo "[exit $status]"; }
has() {
    if printf '%s\n' "$out" | grep -q -F -e "$1"; then echo "the report has: $1"
    else echo "the report lacks: $1"; fi
}
lacks() {
    if printf '%s\n' "$out" | grep -q -F -e "$1"; then echo "the report has (but should not): $1"
    else echo "the report does not have: $1"; fi
}
echo '--- multi-line values, line by line'
c check_multiline.inc
c check_multiline_fail.inc
has 'check_multiline_fail.inc:6'
has '        [6., 9.]])'
has '        [6., 8.]])'
lacks 'check_multiline_fail.inc:5'
