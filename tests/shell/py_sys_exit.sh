# sys.exit ends a .py script with CPython's status (None: 0, an int, a
# message: printed to stderr, 1), after the finally clauses it leaves;
# print(file=sys.stderr) and sys.stdout.write keep their order with print.
# The expected text is CPython's: AG=python3 sh py_sys_exit.sh > py_sys_exit.out
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ag-sysexit.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
for body in 'print("a")\nsys.exit()\nprint("b")' 'sys.exit(3)' 'sys.exit(0)' \
            'print("x")\nsys.exit("bad thing")' 'try:\n    sys.exit(4)\nfinally:\n    print("cleanup")' \
            'def f():\n    for i in range(5):\n        if i == 2:\n            raise SystemExit(i + 5)\n        print(i)\nf()' \
            'try:\n    sys.exit(6)\nexcept SystemExit as e:\n    print("caught", e.code, e.args)\nprint("goes on")' \
            'try:\n    sys.exit(2)\nexcept Exception:\n    print("not an Exception")' \
            'print("out 1")\nprint("err 1", file=sys.stderr)\nsys.stdout.write("out 2\\n")\nsys.stderr.write("err 2\\n")\nprint("out 3", flush=True)' \
            'sys.exit(True)' 'print(sys.stdout)\nprint(sys.stderr, sys.argv)'; do
    printf "import sys\n$body\n" >"$tmp/t.py"
    (cd "$tmp" && $AG t.py 2>&1); echo "[exit $?]"
done
