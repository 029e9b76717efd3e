# open() for writing, appending and creating text files in a .py file, in a
# scratch folder: py_open_write.out is what CPython prints for the same
# script, made with
#   d=$(mktemp -d) && sed -n '/^cat >.*<<.PY.$/,/^PY$/p' py_open_write.sh | sed '1d;$d' >$d/w.py &&
#   (cd $d && /usr/bin/python3 w.py) >py_open_write.out 2>&1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-open.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/w.py" <<'PY'
with open('out.txt', 'w') as f:
    print(f.write('hello\n'), f.write('world\n'), f.closed)
print(f.closed, repr(open('out.txt').read()))
with open('out.txt', 'a') as f:
    f.writelines(['more\n', 'lines\n'])
print(open('out.txt').readlines())
g = open('out.txt', 'w')
g.write('truncated\n')
g.close()
print(repr(open('out.txt').read()))
for bad in [lambda: g.write('x'), lambda: open('out.txt').write('x'),
            lambda: open('out.txt', 'x'), lambda: open('out.txt', 'w').write(3)]:
    try:
        bad()
    except (ValueError, OSError, TypeError) as e:
        print(type(e).__name__, e)
with open('new.txt', 'x') as h:
    h.write('created')
print(open('new.txt').read())
PY
cd "$tmp" && $AG w.py
