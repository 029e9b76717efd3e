# Chained comparisons: each operand read once.
calls = []
def v(x):
    calls.append(x)
    return x
print(1 < v(5) < 10, calls)
x = 5
print(1 < x > 7, 0 <= x <= 5 < 6, 1 < 2 == 2, 3 in [3] == True, 1 < 3 > 2 != 2)
print("a" < "b" < "c", [1] == [1] != [2])
