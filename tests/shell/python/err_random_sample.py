# random.sample of more than there is: CPython's ValueError.
import random

random.seed(1)
print(random.sample([1, 2, 3], 2))
random.sample([1, 2, 3], 4)
