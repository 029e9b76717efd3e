# Two starred targets in one assignment: a SyntaxError, before anything runs.
print("before")
a, *b, *c = [1, 2, 3]
