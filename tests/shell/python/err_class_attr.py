class P:
    def __init__(self):
        self.a = 1
p = P()
print(p.a)
print(p.b)
