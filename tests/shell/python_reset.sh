# :reset at a Python prompt (ag --python, ag -i FILE.py) forgets the
# variables but stays Python: floats still print as Python prints them
# (it printed the dialect's 1 and -0 after :reset; the difftest's dtypes
# programs run many programs in one ag --python, :reset between them).
printf 'x = 1.0\nprint(x, [1.0, -0.0], 1 / 3)\n:reset\nprint([1.0, -0.0], 2.5e-7)\n' | $AG --python - 2>&1
