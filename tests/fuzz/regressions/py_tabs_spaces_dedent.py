def f(x):
    if x:
	return 1
    return 0
print(f(1))
