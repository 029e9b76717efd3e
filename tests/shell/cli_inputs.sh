# Where statements come from: a pipe, `-`, -e, files; in order; no banner
# and no prompts when stdin is not a terminal.
echo '--- a pipe'
echo '1 + 1' | $AG; echo "[exit $?]"
echo '--- - reads stdin'
printf 'x = 2\nx * 3\n' | $AG -; echo "[exit $?]"
echo '--- -e'
$AG -e 'x = 4; x * x'; echo "[exit $?]"
echo '--- -e with several lines'
$AG -e 'x = [1,
  2]
x * 2'; echo "[exit $?]"
echo '--- several -e share one session, in order'
$AG -e 'a = 1' -e 'a + 1' -e 'a + 2'; echo "[exit $?]"
echo '--- a file, then -e, then stdin'
echo 'k + v' | $AG lib_load.inc -e 'v * k' -; echo "[exit $?]"
echo '--- an empty pipe prints nothing'
printf '' | $AG; echo "[exit $?]"
echo '--- comments and blank lines only'
printf '# nothing\n\n   \n' | $AG; echo "[exit $?]"
echo '--- a last line without a newline'
printf '1\n2' | $AG; echo "[exit $?]"
echo '--- CRLF line endings'
printf 'x = 1\r\nx + 1\r\n' | $AG; echo "[exit $?]"
