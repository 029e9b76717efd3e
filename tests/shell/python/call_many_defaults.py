# Calls with few positional arguments to functions with many parameters
# (defaults filled in), more than eight arguments, and methods.
def f(a, b=1, c=2, d=3, e=4, g=5, h=6, i=7, j=8, k=9, l=10):
    return a + b + c + d + e + g + h + i + j + k + l

def nine(a, b, c, d, e, g, h, i, j):
    return [a, b, c, d, e, g, h, i, j]

class C:
    def m(self, a, b=2, c=3, d=4, e=5, g=6, h=7, i=8, j=9):
        return a * b * c + d + e + g + h + i + j

print(f(0), f(1, 2), f(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11))
print(nine(1, 2, 3, 4, 5, 6, 7, 8, 9))
print(C().m(1), C().m(1, 1, 1, 1, 1, 1, 1, 1, 1))
print(f(*[1, 2, 3]), f(1, *[2, 3], k=0))
try_me = lambda x, y=2, z=3: x + y + z
print(try_me(1), try_me(1, 1), try_me(1, 1, 1))
print(nine(1, 2, 3))
