import random
random.seed(3)
print(random.choice([7]))
random.choice([])
