import math
print(math.log(1.0))
print(math.sqrt(-1))
