class Plain:
    pass
for x in [1]:
    print(x)
print(len(Plain()))
