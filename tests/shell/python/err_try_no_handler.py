# try needs an except or a finally.
print("never printed: a syntax error stops the file before it runs")
try:
    x = 1
print(x)
