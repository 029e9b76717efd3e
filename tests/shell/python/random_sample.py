# random.sample: CPython 3.11's draws (a pool for small populations, indices
# drawn until new for large ones). Expected: CPython's.
import random
random.seed(0)
print(random.sample(range(10), 3), random.sample([1, 2, 3, 4, 5, 6, 7, 8], 8), random.sample("abcdefg", 2))
print(random.sample(range(1000), 10), random.sample(list(range(100)), 30)[:5], random.sample(range(5), 0))
random.seed(42)
print(random.sample(range(200), 6), random.random())
