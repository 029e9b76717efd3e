n = 3
assert n < 2, f"n is {n}"
