# :graph and :dot need the name of one tensor variable; :trace takes on or
# off.
e() { $AG -e "$1" -e "$2" 2>&1; echo "[exit $?]"; }
e 'x = tensor(1., grad)' ':graph'
e 'x = tensor(1., grad)' ':graph nothere'
e 'f(x) = x * 2' ':graph f'
e 'x = tensor(1., grad); y = x * 2' ':graph x y'
e 'x = tensor(1., grad)' ':dot'
e 'x = tensor(1., grad)' ':dot nothere'
e 'x = tensor(1., grad)' ':trace'
e 'x = tensor(1., grad)' ':trace yes'
