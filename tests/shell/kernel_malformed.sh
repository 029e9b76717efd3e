# A malformed request ends ag --kernel with status 2 and a message on
# stderr, after answering the requests before it: the stream after a bad
# header cannot be trusted. Each case: a bad header, an unknown request, a
# request cut short by the end of the input.
printf 'execute 5\n1 + 1' | $AG --kernel; echo "(exit status $?)"
printf 'execute 1\n1bogus\n' | $AG --kernel; echo "(exit status $?)"
printf 'launch 2\nhi' | $AG --kernel; echo "(exit status $?)"
printf 'execute 100\nx = 1' | $AG --kernel; echo "(exit status $?)"
printf 'execute 99999999999999999999\n' | $AG --kernel; echo "(exit status $?)"
