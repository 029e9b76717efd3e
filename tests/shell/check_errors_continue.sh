# ag --check: errors do not stop a checked script, so the expectations
# after an error are still checked; an error where output was expected,
# and output where an error was, are mismatches. (The wording of the
# report is not fixed; only what it must contain.)
. ./check_helpers.inc
echo '--- errors in the middle, every expectation holds'
c check_continue.inc
echo '--- a wrong expectation after an expected error'
c check_continue_fail.inc
has 'check_continue_fail.inc:8'
has 'tensor(5.)'
has 'tensor(4.)'
lacks 'check_continue_fail.inc:4'
lacks 'check_continue_fail.inc:10'
echo '--- an error where output was expected, output where an error was'
c check_unexpected_error.inc
has 'check_unexpected_error.inc:4'
has "unknown name 'nothere'"
c check_missing_error.inc
has 'check_missing_error.inc:4'
has 'tensor(2.)'
