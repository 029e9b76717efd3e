class Plain:
    pass
p = Plain()
print(bool(p))
print(p[0])
