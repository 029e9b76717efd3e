def check(x):
    if x < 0:
        raise ValueError("negative") from None
    return x
print(check(2))
print(check(-1))
