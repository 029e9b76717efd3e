class Plain:
    pass
p = Plain()
p.x = 1
p[0] = 1
