# collections' dicts: OrderedDict, defaultdict and Counter, printed, compared and
# counted as CPython's; their errors in Python's words.
from collections import OrderedDict, defaultdict, Counter
import collections
od = OrderedDict([('b', 1), ('a', 2)])
od['c'] = 3
print(od, len(od), list(od.keys()), od['a'])
print(OrderedDict(), type(od), type(od).__name__, isinstance(od, dict), isinstance(od, OrderedDict))
print(od == OrderedDict([('a', 2), ('b', 1), ('c', 3)]), od == {'a': 2, 'b': 1, 'c': 3}, dict(od))
print(od.copy(), od.copy() is od)
counts = defaultdict(int)
for w in "the cat the dog the end".split():
    counts[w] += 1
print(counts, counts['zzz'], 'yy' in counts, dict(counts))
groups = defaultdict(list)
for i, w in enumerate("a b a c".split()):
    groups[w].append(i)
print(groups, type(groups).__name__)
d2 = defaultdict(lambda: 'x')
print(d2[1], dict(d2))
c = Counter("abracadabra")
print(c, c['a'], c['z'], 'z' in c)
print(c.most_common(2), c.most_common(), c.total())
c.update("aab")
print(c)
c2 = Counter(cats=4, dogs=8)
print(c2, Counter({'x': 2, 'y': 5}), Counter())
c3 = Counter()
for ch in "hello": c3[ch] += 1
print(c3)
print(collections.Counter([1, 1, 2]).most_common(1), collections.OrderedDict(a=1))
dd = defaultdict(None)
try:
    dd['k']
except KeyError as e:
    print('KeyError', e)
try:
    defaultdict(3)
except TypeError as e:
    print(e)
try:
    {}.most_common()
except AttributeError as e:
    print(e)
print(type(c), type(counts))
