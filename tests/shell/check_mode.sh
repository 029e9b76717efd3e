# ag --check FILE...: runs scripts against their inline "# expect:" and
# "# expect error:" lines, reports each mismatch, exits 1 on any.
# (The wording of the report is not fixed; only what it must contain.)
echo '--- every expectation holds: status 0'
$AG --check check_pass.inc >/dev/null 2>&1; echo "[exit $?]"
echo '--- a wrong expectation: status 1, the report names it'
out=$($AG --check check_fail.inc 2>&1); echo "[exit $?]"
printf '%s\n' "$out" | grep -q 'tensor(9.)' && echo 'the report shows the expected text'
printf '%s\n' "$out" | grep -q 'tensor(8.)' && echo 'the report shows the printed text'
echo '--- several files: status 1 when any fails'
$AG --check check_pass.inc check_fail.inc >/dev/null 2>&1; echo "[exit $?]"
$AG --check check_pass.inc check_pass.inc >/dev/null 2>&1; echo "[exit $?]"
