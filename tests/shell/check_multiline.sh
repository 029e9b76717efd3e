# ag --check: a value printed over several lines is matched one line per
# expectation, spaces included; a wrong line is reported by its own line
# number. (The wording of the report is not fixed.)
. ./check_helpers.inc
echo '--- multi-line values, line by line'
c check_multiline.inc
c check_multiline_fail.inc
has 'check_multiline_fail.inc:6'
has '        [6., 9.]])'
has '        [6., 8.]])'
lacks 'check_multiline_fail.inc:5'
