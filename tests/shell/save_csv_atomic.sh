# save_csv writes a temporary file beside the target, syncs it and renames
# it over: a failed write (here a file-size limit, as a full disk) leaves
# the old file as it was and no temporary behind. A link is followed (the
# file it names is replaced), the old file's mode is kept, and what is not
# a regular file (/dev/stdout) is written in place.
dir=${TMPDIR:-/tmp}/ag-save-csv.$$
mkdir -p "$dir" && cd "$dir" || exit 1
trap 'cd / && rm -rf "$dir"' EXIT
$AG -e 'save_csv(tensor([[1., 2.], [3., 4.]]), "d.csv")'
chmod 640 d.csv
(ulimit -f 8; $AG -e 'save_csv(arange(100000.), "d.csv")' 2>&1; echo "exit status $?")
echo "--- after the failure:"
cat d.csv
ls
ls -l d.csv | cut -c1-10
ln -s d.csv link.csv
$AG -e 'save_csv(tensor([5., 6.]), "link.csv")'
echo "--- through a link:"
cat d.csv
ls -l link.csv d.csv | cut -c1
ls -l d.csv | cut -c1-10
echo "--- /dev/stdout:"
$AG -e 'save_csv(tensor([7.]), "/dev/stdout")' | cat
