if True:
	if True:
        x = 1
	print(x)
