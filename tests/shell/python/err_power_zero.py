# 0.0 to a negative power is ZeroDivisionError
print(2.0 ** -1, (-2.0) ** -2, (-8.0) ** 2)
print(0.0 ** -1)
