class P:
    def __init__(self, a):
        self.a = a
p = P(1, 2)
