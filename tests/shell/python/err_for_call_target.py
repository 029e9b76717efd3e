# A call is no loop target: Python's SyntaxError.
for f() in range(2):
    pass
