# ag --check FILE...: the exit status is 0 when every file holds, else 1;
# a file that cannot be opened is a failure, and the other files are still
# checked. (The wording of the report is not fixed.)
. ./check_helpers.inc
echo '--- several files: 0 only when all hold'
c check_continue.inc check_multiline.inc
c check_continue.inc check_extra_output.inc check_multiline.inc
echo '--- a file that cannot be opened: a failure; the others are still checked'
c no-such-file.inc
has 'no-such-file.inc'
c no-such-file.inc check_continue_fail.inc
has 'no-such-file.inc'
has 'check_continue_fail.inc:8'
