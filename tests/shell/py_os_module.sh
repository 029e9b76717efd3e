# os and os.path as scripts use them beside their data: paths joined and
# split as CPython's posixpath, directories made (exist_ok), listed and
# removed, files' sizes, CPython's OSErrors (FileExistsError,
# FileNotFoundError), environ and getenv, run in a directory of its own.
# The expected text is CPython's: AG=python3 sh py_os_module.sh > py_os_module.out
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-os.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/t.py" <<'PY'
import os
import os.path
from os.path import join, exists
os.environ['KMP_DUPLICATE_LIB_OK'] = 'True'
print(os.environ.get('KMP_DUPLICATE_LIB_OK'), os.getenv('NO_SUCH_VAR_AG', 'dflt'))
print(os.path.join('data', 'mnist', 'train.csv'), join('/a/', 'b'), join('a', '/abs', 'c'), join('a', ''))
print(os.path.basename('/x/y/z.txt'), os.path.dirname('/x/y/z.txt'), os.path.splitext('model.ckpt.pt'),
      os.path.splitext('.bashrc'), os.path.splitext('a/b'))
print(os.path.split('a/b/'), os.path.split('/top'), os.path.normpath('a//b/./c/../d'),
      os.path.normpath('/../x/'), os.path.normpath(''), os.path.isabs('/q'), os.sep, os.name)
os.makedirs('out/checkpoints', exist_ok=True)
os.makedirs('out/checkpoints', exist_ok=True)
print(exists('out'), os.path.isdir('out/checkpoints'), os.path.isfile('out'))
with open(os.path.join('out', 'log.txt'), 'w') as f:
    f.write('hello')
print(sorted(os.listdir('out')), os.path.getsize('out/log.txt'))
for bad in [lambda: os.makedirs('out/checkpoints'), lambda: os.listdir('nope'),
            lambda: os.mkdir('out'), lambda: os.remove('nope.txt')]:
    try:
        bad()
    except OSError as e:
        print(type(e).__name__, e)
os.remove('out/log.txt')
os.rmdir('out/checkpoints')
os.rmdir('out')
print(os.path.exists('out'), os.path.abspath('x/../y') == os.path.join(os.getcwd(), 'y'))
print(os.path.expanduser('~/m') == os.environ['HOME'] + '/m', isinstance(os.cpu_count(), int))
PY
if [ "$AG" = python3 ]; then run=/usr/bin/python3; else run=$AG; fi
(cd "$tmp" && HOME=/home/ag $run t.py 2>&1); echo "[exit $?]"
