# Cells that each start at line 1 (-e TEXT, as a notebook's): a def whose
# text and place repeat an earlier cell's takes its tree (session.c,
# parsed_before) only with the same decorators, so a method that was a
# staticmethod in one cell is a plain method in the next.
# The expected text is CPython's: AG=python3 sh py_cells_parsed_again.sh > py_cells_parsed_again.out
first='class A:
    @staticmethod
    def m(x=5): return x
print(A.m())'
second='class A:
    # no decorator
    def m(x=5): return x
print(type(A().m()).__name__)'
if [ "$AG" = python3 ]; then
    printf '%s\n%s\n%s\n' "$first" "$second" "$first" | python3 2>&1
else
    $AG --python -e "$first" -e "$second" -e "$first" 2>&1
fi
echo "[exit $?]"
