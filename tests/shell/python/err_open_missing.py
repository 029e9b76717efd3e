# A file that is not there: FileNotFoundError, on open's line.
print("reading")
text = open('python/no_such_names.txt').read()
