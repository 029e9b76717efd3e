# Cycles of lists, dicts and objects, and a DAG of objects sharing
# children, while enough calls run to make the cycle collector pass over
# them many times: each is walked once a pass (this crashed, and the DAG
# took time exponential in its depth).
a = []
a.append(a)
d = {}
d["self"] = d
class Node:
    def __init__(self, kids):
        self.kids = kids
n = Node([])
n.me = n
n.kids.append(n)
top = Node([])
for depth in range(60):
    top = Node([top, top])
def f(x):
    return x + 1
t = 0
for i in range(20000):
    t = f(t)
print(t, len(a), len(d), a[0] is a, d["self"] is d, n.me is n)
print(len(top.kids), top.kids[0] is top.kids[1])
# The cycles above stay: the collector frees them (a leak under ASan if not).
# Long chains: released and walked without the C stack growing with them.
class Link:
    def __init__(self, nxt):
        self.nxt = nxt
head = None
for i in range(100000):
    head = Link(head)
for i in range(3000):
    t = f(t)
head = None
xs = None
for i in range(300000):
    xs = [xs]
xs = None
print(t, "chains freed")
