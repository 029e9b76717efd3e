# Names read inside comprehensions and closures find the nearest binding:
# the comprehension's own variable, the function's, an enclosing
# function's, the module's, a builtin's; ints and floats mixed in
# arithmetic keep Python's types.
scale = 3
def f(xs, k):
    offset = 10
    inner = [[x * k + offset + scale for x in row] for row in xs]
    flat = [v for row in inner for v in row if v % 2 == 0]
    x = "function's x"
    shadow = [x for x in range(3)]
    return inner, flat, x, shadow, sum(len(r) for r in xs)
print(f([[1, 2], [3]], 2))
def outer():
    total = 0
    def add(n):
        nonlocal total
        total += n
        return [total + i for i in range(n)]
    first = add(2)
    second = add(3)
    return first, second, total
print(outer())
def counters():
    made = [lambda i=i: i * scale for i in range(3)]
    return [m() for m in made]
print(counters())
def kinds(a, b):
    return [a + b, a - b, a * b, a / b, a // b, a % b, a ** 2, a < b, a == b, -a]
print(kinds(7, 2), kinds(7.0, 2), kinds(7, 2.5), kinds(True, 2))
print(9223372036854775807 - 1, -9223372036854775807 - 1, 3037000499 * 3037000499)
print(1 / 3, 2 / 4, 1.5 / 0.5, 10 / 4)
try:
    print(1 / 0)
except ZeroDivisionError as e:
    print("ZeroDivisionError:", e)
try:
    print(1.0 / 0.0)
except ZeroDivisionError as e:
    print("ZeroDivisionError:", e)
