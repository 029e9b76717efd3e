# Values only the interpreter's C code holds while a collection runs.
class Node:
    def __init__(self, v):
        self.v = v
        self.me = self          # a cycle: only the collector frees it
        self.kids = [self]

def churn(n):
    # makes cycles inside a function: collections run between these
    # iterations while the callers hold temporaries
    total = 0
    for i in range(n):
        total += Node(i).v
    return total

def pair(a, b):
    return [a[0].v, len(a), b]

def chain(k):
    out = []
    for i in range(k):
        d = {'node': Node(i), 'list': [Node(i)]}
        d['self'] = d
        out.append(d)
    return out

# an argument list held only by the call's C array while churn runs
print(pair([Node(7), Node(8)], churn(5000)))
# a comprehension's list, held by C, grows while each item's call churns
xs = [churn(300) + i for i in range(20)]
print(sum(xs), len(xs))
# a dict literal being built
d = {'a': [Node(1)], 'b': churn(4000), 'c': (Node(2), churn(100))}
print(d['a'][0].v, d['b'], d['c'][0].v, d['c'][1])
# method calls on a temporary object while churning
print(Node(3).me.kids[0].v + churn(3000))
# nested: a cycle-holding list returned through many calls
ys = chain(3000)
print(len(ys), ys[2999]['self']['node'].v, ys[5]['list'][0].me.v)
# binary operands held across a churning right side
print(len([Node(1)] * 3 + [churn(2000)]))
# f-string fields
print(f"{Node(5).v} {churn(1500)} {len(chain(500))}")
# a generator-style list and sorting with a key that churns
zs = sorted([3, 1, 2], key=lambda z: z + churn(700) * 0)
print(zs)
def deep(n):
    if n == 0:
        return churn(2000)
    keep = [Node(n)]
    return deep(n - 1) + keep[0].v
print(deep(50))
