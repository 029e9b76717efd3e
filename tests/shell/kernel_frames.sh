# ag --kernel's frames (repl/kernel.c; docs/language.md "Jupyter
# notebooks"): each request as the Python side writes it, each answer shown
# with its NUL separators as '|'. The expected answers are the protocol's,
# written by hand: a cell's last value is its result, earlier ones print
# where they come in the .ag dialect and are dropped in the .py one, an
# error stops the cell and leaves the session, completions and :help.
request() { # KIND TEXT [CURSOR]
    printf '%s %d%s\n%s' "$1" "$(printf '%s' "$2" | wc -c)" "${3:+ $3}" "$2"
}
{
    request execute 'x = tensor([1., 2.], grad)
y = sum(x * x)
y'
    request execute 'backward(y)'
    request execute 'print(1)
3
print(2)
4'
    request execute 'a = 1
z = q + 1
b = 2'
    request execute 'a
b'
    request execute ':load no/such/file.ag'
    request execute 'for i in range(2):
    print(i)
i'
    request complete 'x + ta' 6
    request inspect 'y = relu(x)' 6
    request inspect 'y = nothing_here(x)' 6
    request execute '%python
import torch
t = torch.tensor([1.0, 2.0])
t * 2
t.sum()'
    request execute 't
u = 1'
    request execute 'print(nope)'
    request execute 'def f(:
    pass'
} | $AG --kernel | tr '\0' '|'
echo "(exit status $?)"
# A cell's own statements give its result; a module it imports, or a file
# it :loads, does not (a .py module's top-level values are not shown).
dir=$(mktemp -d "${TMPDIR:-/tmp}/ag-kernel.XXXXXX")
printf '"""the engine"""\nx = 1\nx + 41\n' >"$dir/engine.py"
printf 'y = 2\ny * 3\n' >"$dir/part.ag"
(cd "$dir" && {
    request execute '%python
import engine'
    request execute 'engine.x'
    request execute '%ag
:load part.ag'
    request execute ':load part.ag
y + 1'
} | $AG --kernel)
echo "(exit status $?)"
rm -r "$dir"
# IPython's own lines are skipped with a note, before the first cell decides
# the dialect: this notebook is Python's (a list's repr, 1 not tensor(1.)).
{
    request execute '%matplotlib inline
!pip install torch
import torch
[1, 2] + [3]'
    request execute 'x = 1
x'
} | $AG --kernel
echo "(exit status $?)"
