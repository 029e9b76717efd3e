# Indentation blocks: def with defaults and keywords, if/elif/else, for and
# while with break/continue, pass, nested blocks, one-line suites.
def classify(x, low=0, high=10):
    """A docstring is an expression statement: nothing is printed."""
    if x < low:
        return "low"
    elif x > high:
        return "high"
    else:
        return "mid"

for v in [-1, 5, 11]:
    print(v, classify(v), classify(v, high=4), classify(x=v, low=6))

total = 0
for i in range(10):
    if i % 2 == 0:
        continue
    if i > 7: break
    total += i
print("total", total)

n = 0
while True:
    n += 1
    if n >= 3:
        break
print("n", n)

def nothing():
    pass

print(nothing())
if n == 3: print("one-line suite"); print("two statements")

def pow2(k):
	return 2 ** k
print(pow2(10), pow2(62))
