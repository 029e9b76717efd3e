# An exception no clause names goes on up, from the line it was raised on.
try:
    print("in try")
    x = [1, 2][3]
except KeyError:
    print("not this one")
