# The first error: FILE:LINE:COL: error: MESSAGE on stderr, exit status 1,
# what was printed before stays, nothing after runs.
echo '--- in a pipe: <stdin>'
printf '1\nundefined_thing\n2\n' | $AG 2>&1; echo "[exit $?]"
echo '--- with -: <stdin>'
printf 'x = 1\nx\n  y = x + [1, 2] @ [1]\nx\n' | $AG - 2>&1; echo "[exit $?]"
echo '--- in -e: <-e>, later arguments do not run'
$AG -e '5; [1, 2] @ [1]' -e '6' 2>&1; echo "[exit $?]"
echo '--- in the second -e: lines count from 1 in each'
$AG -e '1' -e '2
3 +* 4' 2>&1; echo "[exit $?]"
echo '--- in a file: its name as given'
$AG lib_load.inc lib_error.inc -e '12' 2>&1; echo "[exit $?]"
echo '--- stdout and stderr stay separate'
$AG -e '7' -e 'nope' 2>/dev/null; echo "[exit $?]"
$AG -e '7' -e 'nope' 2>&1 >/dev/null; echo "[exit $?]"
echo '--- :quit stops this input and every later one, with status 0'
$AG -e '1
:quit
2' -e '3'; echo "[exit $?]"
echo '--- a file that cannot be opened'
$AG no_such_file.ag 2>&1; echo "[exit $?]"
