#!/bin/sh
# make test-notebook: every notebook in examples/notebooks/, executed by the
# ag kernel through Jupyter (jupyter nbconvert --execute), then checked
# (check.py: errors where expected, the pictures parse as SVG, the outputs
# are the committed ones, the numbers are PyTorch's); the session through
# jupyter_client (session.py: interrupt, completion, help, streaming); and,
# where chromium is installed, a browser's screenshot of the HTML export
# (screenshot.py: the SVG pictures are drawn). The kernelspec is installed
# in a scratch Jupyter directory: nothing global is touched.
#
# Usage: tests/notebook/run.sh PATH_TO_AG [--update]
#   --update  writes the executed notebooks back into examples/notebooks/
#             (their outputs, without timings) instead of comparing them
# Prints "N passed, N failed" last.
ag=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
update=$2
cd "$(dirname "$0")/../.." || exit 2
py=
for p in ${JUPYTER_PYTHON:-} python3 /usr/bin/python3; do
    if "$p" -c 'import ipykernel, jupyter_client, nbclient, nbconvert, nbformat' 2>/dev/null; then
        py=$p; break
    fi
done
if [ -z "$py" ]; then
    echo "make test-notebook needs Jupyter's Python packages: apt-get install python3-ipykernel" \
         "python3-nbconvert python3-nbclient (or pip install ipykernel nbconvert nbclient)"
    echo "0 passed, 1 failed"
    exit 1
fi
if ! command -v dot >/dev/null 2>&1; then # the notebooks draw graphs
    echo "make test-notebook needs Graphviz for the graph pictures: apt-get install graphviz"
    echo "0 passed, 1 failed"
    exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-notebook.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
export JUPYTER_PATH="$tmp/share/jupyter" JUPYTER_DATA_DIR="$tmp/data" \
       JUPYTER_RUNTIME_DIR="$tmp/runtime" JUPYTER_CONFIG_DIR="$tmp/config" \
       IPYTHONDIR="$tmp/ipython" PYDEVD_DISABLE_FILE_VALIDATION=1
passed=0 failed=0
tally() { # the "N passed, N failed" line of a checker's output
    out=$("$@" 2>&1); status=$?
    printf '%s\n' "$out" | grep -v '^ok '
    p=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' | tail -n 1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' | tail -n 1)
    [ -n "$p" ] || { p=0; f=1; }
    [ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
    passed=$((passed + p)); failed=$((failed + f))
}

"$py" repl/jupyter/install.py "$ag" --prefix "$tmp" >/dev/null || exit 1
# Debian packs the jupyter-nbconvert command apart (package jupyter-nbconvert):
# python3 -m nbconvert is the same program.
if command -v jupyter-nbconvert >/dev/null; then nbconvert="jupyter nbconvert"
else nbconvert="$py -m nbconvert"; fi
for nb in examples/notebooks/*.ipynb; do
    if $nbconvert --to notebook --execute --ExecutePreprocessor.kernel_name=ag \
           --ExecutePreprocessor.timeout=300 --output-dir "$tmp/out" "$nb" 2>"$tmp/log"; then
        passed=$((passed + 1)); echo "ok executed $nb"
    else
        failed=$((failed + 1)); tail -n 20 "$tmp/log"; echo "FAIL executing $nb"
    fi
done
if [ "$update" = --update ]; then
    "$py" -c '
import sys, nbformat
for path in sys.argv[2:]:
    nb = nbformat.read(sys.argv[1] + "/" + path.split("/")[-1], 4)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)  # timings: they would change at every run
    nbformat.write(nb, path)
    print("updated", path)' "$tmp/out" examples/notebooks/*.ipynb
    exit
fi
tally "$py" tests/notebook/check.py "$tmp/out" examples/notebooks/*.ipynb
tally "$py" tests/notebook/session.py
browser=$(command -v chromium || command -v chromium-browser)
if [ -n "$browser" ]; then
    "$py" tests/notebook/export_html.py "$tmp/out/autograd_by_hand.ipynb" "$tmp/page.html" &&
        timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
            --window-size=1000,6000 --screenshot="$tmp/page.png" "file://$tmp/page.html" \
            >/dev/null 2>&1
    tally "$py" tests/notebook/screenshot.py "$tmp/page.png"
else
    echo "skipped the browser check: it needs chromium (apt-get install chromium)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
