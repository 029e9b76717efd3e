# --help, --version, a bad option, -e without its TEXT.
echo '--- --help: usage on stdout, nothing on stderr, status 0'
out=$($AG --help 2>&1 >/dev/null); echo "stderr: [$out]"
out=$($AG --help 2>/dev/null); echo "[exit $?]"
printf '%s\n' "$out" | head -n 1
for word in FILE -e --check --help --version; do
    printf '%s\n' "$out" | grep -q -e "$word" || echo "--help does not mention $word"
done
echo '--- --version: the name and a version number'
out=$($AG --version); status=$?
printf '%s\n' "$out" | sed -E 's/[0-9]+\.[0-9]+\.[0-9]+/X.Y.Z/'; echo "[exit $status]"
echo '--- an unknown option: a message and the usage on stderr, status 2'
out=$($AG --bogus 2>/dev/null); status=$?; echo "stdout: [$out]"; echo "[exit $status]"
$AG --bogus 2>&1 | head -n 2
echo '--- -e without TEXT'
out=$($AG -e 2>&1); status=$?; printf '%s\n' "$out" | head -n 2; echo "[exit $status]"
echo '--- a bad $AG_MEMORY_LIMIT does not stop --help or --version (issue 9)'
out=$(AG_MEMORY_LIMIT=lots $AG --help 2>&1); status=$?; printf '%s\n' "$out" | head -n 1; echo "[exit $status]"
out=$(AG_MEMORY_LIMIT=-5 $AG --version 2>&1); status=$?
printf '%s\n' "$out" | sed -E 's/[0-9]+\.[0-9]+\.[0-9]+/X.Y.Z/'; echo "[exit $status]"
out=$(AG_MEMORY_LIMIT=lots $AG -e 1 2>&1); status=$?; printf '%s\n' "$out" | head -n 1; echo "[exit $status]"
