# Numbers in messages are written as Python writes a float: never -nan
# (0/0 is a nan with its sign bit set on x86), and a non-integer in full,
# never rounded to look like the integer it is not (issue 9, "Smaller":
# zeros(2.0000000000000004) said "not 2").
# /usr/bin/python3 -c 'print(2.0000000000000004, 0.1 + 0.2, float("nan"), -float("nan"))'
# -> 2.0000000000000004 0.30000000000000004 nan nan
e() { $AG -e "$1" 2>&1; echo "[exit $?]"; }
e 'zeros(2.0000000000000004)'
e 'ones(3, 0.1 + 0.2)'
e 'zeros(0/0)'
e 'zeros(-(0/0))'
e 'sum(ones(2), 0/0)'
e 'linspace(0, 1, 0/0)'
e 'eye(0/0)'
e 'seed(0/0)'
e 'reshape(ones(2), 0/0)'
e 'print(0/0, -(0/0))'
# A negative float to a fractional power is complex in Python
# (python3 -c 'print((-1.5) ** 2.5)' prints (8.4e-16+2.76j)): ag has no
# complex numbers and says so, never a silent nan
printf 'print(2.0 ** 0.5)\nprint((-1.5) ** 2.5)\n' | $AG --python - 2>&1; echo "[exit $?]"
