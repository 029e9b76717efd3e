# Output that cannot be written is an error: a message on stderr and exit
# status 1, as Python does (issue 9, "Smaller": `./ag -e 'randn(3)' >
# /dev/full` said nothing and exited 0).
# /usr/bin/python3 -c 'print(1)' >/dev/full  -> OSError: [Errno 28], exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-write.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '# expect: tensor(2.)\n1 + 1\n' >"$tmp/check.ag"
w() { "$@" >/dev/full 2>"$tmp/err"; echo "[exit $?]"; cat "$tmp/err"; }
w $AG -e 'randn(3)'
w $AG -e 'print(1)' -e 'x = 2'
w $AG -e 'x = 1' -e ':vars'
w $AG --check "$tmp/check.ag"
w $AG --help
w $AG --version
echo '--- nothing printed, nothing to fail'
w $AG -e 'x = 1'
