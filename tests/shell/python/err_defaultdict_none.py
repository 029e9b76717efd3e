# d[k] of a defaultdict with no factory: KeyError, on its line.
from collections import defaultdict
d = defaultdict(None, a=1)
print(d)
print(d["a"], d["b"])
