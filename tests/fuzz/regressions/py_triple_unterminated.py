x = """abc
print(x)
