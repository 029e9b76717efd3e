# A fresh shell starts from a fixed seed: a script prints the same numbers
# every run (compared run against run, never against hard-coded digits).
a=$($AG -e 'randn(5); rand(2, 3); randn()')
b=$($AG -e 'randn(5); rand(2, 3); randn()')
[ -n "$a" ] && [ "$a" = "$b" ] && echo 'two runs print the same numbers'
# :help seed says a fresh shell uses seed 0
c=$($AG -e 'seed(0); randn(5); rand(2, 3); randn()')
[ "$a" = "$c" ] && echo 'a fresh shell is seed(0)'
# a different seed gives different numbers
d=$($AG -e 'seed(1); randn(5); rand(2, 3); randn()')
[ "$a" != "$d" ] && echo 'seed(1) differs'
# the stream goes on: two draws in one run differ
e=$($AG -e 'randn(4)
randn(4)')
[ "$(printf '%s\n' "$e" | sed -n 1p)" != "$(printf '%s\n' "$e" | sed -n 2p)" ] && echo 'successive draws differ'
