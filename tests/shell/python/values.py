# Python's numbers: int and float arithmetic, floor division and modulo,
# printing, tuples and unpacking, strings, is / in.
print(7 // 2, -7 // 2, 7 % -3, -7 % 3, 2 ** 10, 2 ** -1, 7 / 2, 6 / 3)
print(1.0, 2.5, 1e16, 1e-5, 0.1 + 0.2, -0.0, 10 ** 18)
a, b = 1, 2.0
a, b = b, a
print(a, b)
(x, y), z = (1, 2), 3
print(x, y, z)
p = q = 4
print(p, q)
for i, (u, w) in enumerate(zip([10, 20], ["a", "b"])):
    print(i, u, w)
s = "ab" + "cd"
print(s, s == "abcd", "b" in s, "z" not in s, s * 2)
print(None is None, a is not None, 3 in [1, 2, 3], [1, 2] == [1, 2])
print(True + True, True and 0, not [])
print("a", "b", sep=", ", end=".\n")
print(str(None) + "!", repr(str()), str(None) == "None")
