class P:
    pass
print(P() + 1)
