s = set()
s.add([1])
