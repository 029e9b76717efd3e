print(q)
