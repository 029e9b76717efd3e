# ag's generators run to their end when called, so itertools' endless
# iterators (count(), cycle(), repeat(x) without times) are refused with
# what to write instead, catchable as NotImplementedError: a departure
# from CPython (docs/language.md). The expected text is ag's documented
# message, written from the docs.
cat > "${TMPDIR:-/tmp}/ag-itertools-$$.py" <<'PY'
import itertools
for endless in (lambda: itertools.count(), lambda: itertools.cycle("ab"),
                lambda: itertools.repeat(1)):
    try:
        endless()
    except NotImplementedError as e:
        print(e)
print(list(itertools.repeat(1, 2)))
itertools.count(5)
PY
$AG "${TMPDIR:-/tmp}/ag-itertools-$$.py" 2>&1 | sed 's|^.*ag-itertools-[0-9]*\.py|F.py|'
rm -f "${TMPDIR:-/tmp}/ag-itertools-$$.py"
