for n in range(2, 10):
    for x in range(2, n):
        if n % x == 0:
            print(n, 'equals', x, '*', n // x)
            break
    else:
        print(n, 'is a prime number')
i = 0
while i < 3:
    i += 1
else:
    print("done", i)
while True:
    break
else:
    print("never")
for c in "ab":
    continue
else:
    print("after continue")
