# random.sample of a set: CPython 3.11's TypeError (a set has no order).
import random

print(random.sample([3, 1, 2], 3) is not None)
random.sample({1, 2, 3}, 2)
