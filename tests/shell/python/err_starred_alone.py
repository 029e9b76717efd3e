# A starred target alone is a SyntaxError, before anything runs.
print("before")
*a = [1]
