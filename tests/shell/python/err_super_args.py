# super(Class, obj) with obj not a Class: Python's TypeError.
class A:
    def __init__(self):
        self.v = 1


class B(A):
    def __init__(self):
        super(B, self).__init__()


print(B().v)
super(B, A())
