# A '{' left open is Python's SyntaxError, on its line.
x = 1
d = {'a': 1,
     'b': 2
print(d)
