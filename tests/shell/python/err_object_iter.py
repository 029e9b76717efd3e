class Plain:
    pass
xs = [1, 2]
for x in Plain():
    print(x)
