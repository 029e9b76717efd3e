# A directory or a file that cannot be read is an error, never an empty
# script that succeeds (issue 9, item 4: `ag /tmp`, `:load /tmp` and
# `ag --check /tmp` ran nothing and passed). /proc/self/mem opens but fails
# every read at offset 0 (EIO): a read error that even root gets.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-read.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
mkdir adir
printf '# expect: tensor(1.)\n1\n' >ok.ag
p() { "$@" 2>&1; echo "[exit $?]"; }
echo '--- a directory: as a script, by :load, by --check'
p $AG adir
p $AG -e '1' adir -e '2'
p $AG -e ':load adir'
printf ':load adir\n3\n' | p $AG -
p $AG --check adir
p $AG --check ok.ag adir
echo '--- a read error: as a script, by :load, by --check'
p $AG /proc/self/mem
p $AG -e ':load /proc/self/mem'
p $AG --check /proc/self/mem
