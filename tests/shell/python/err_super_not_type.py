# super(x, self) with x not a class: Python's TypeError.
class A:
    def f(self):
        return super(3, self).f()


print(A is not None)
A().f()
