# Python's random module is CPython's Mersenne Twister: the same seed gives
# the same numbers; math's functions take and give Python numbers.
import math
import torch
import random
from math import exp, sqrt as root

random.seed(42)
print(random.random(), random.uniform(-1, 1), random.randint(1, 6))
print(random.randrange(10), random.randrange(2, 20, 3), random.randrange(10, 0, -3))
xs = list(range(10))
random.shuffle(xs)
print(xs, random.choice(xs), random.choice("abc"), random.choice((4, 5)))
print(random.gauss(0, 1), random.gauss(0, 1), random.gauss(2, 3))
print(random.getrandbits(5), random.getrandbits(40), random.getrandbits(63))
random.seed(-7)
print(random.random())
random.seed(2**40 + 3)
print([random.uniform(0, 1) for _ in range(3)])
random.seed(0)
w = [random.uniform(-1, 1) for _ in range(4)]
print(w)
print(exp(1), root(2), math.floor(2.5), math.ceil(-2.5), type(math.trunc(-1.5)))
f = math.sqrt
print(f(16.0), math.atan2(1, 2), math.hypot(3, 4), math.fmod(7, 3))
print(math.exp(torch.tensor(0.5)))
