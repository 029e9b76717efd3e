# ag --check: a script that prints more than its expectations, or less,
# fails, and the report names the extra output or the expectation never
# met. (The wording of the report is not fixed; only what it must contain.)
. ./check_helpers.inc
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
