import math
print(math.pi)
from mod_pkg import nothing_here
