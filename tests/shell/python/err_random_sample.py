# random.sample of more than there is: CPython's ValueError.
import random

print(random.sample([1, 2, 3], 2))
random.sample([1, 2, 3], 4)
