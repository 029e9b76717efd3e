# ag --check FILE...: the exit status is 0 when every file holds, else 1;
# a file that cannot be opened is a failure, and the other files are still
# checked. (The wording of the report is not fixed.)
c() { out=$($AG --check "$@" 2>&1); status=$?; echo "[exit $status]"; }
has() {
    if printf '%s\n' "$out" | grep -q -F -e "$1"; then echo "the report has: $1"
    else echo "the report lacks: $1"; fi
}
lacks() {
    if printf '%s\n' "$out" | grep -q -F -e "$1"; then echo "the report has (but should not): $1"
    else echo "the report does not have: $1"; fi
}
echo '--- several files: 0 only when all hold'
c check_continue.inc check_multiline.inc
c check_continue.inc check_extra_output.inc check_multiline.inc
echo '--- a file that cannot be opened: a failure; the others are still checked'
c no-such-file.inc
has 'no-such-file.inc'
c no-such-file.inc check_continue_fail.inc
has 'no-such-file.inc'
has 'check_continue_fail.inc:8'
