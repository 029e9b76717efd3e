# collections.namedtuple (Fluent Python's Card and City), Python's old sequence
# protocol (an object with __getitem__ alone iterates, unpacks and answers in),
# random.choice of such an object.
from collections import namedtuple
import collections
Point = namedtuple('Point', ['x', 'y'])
p = Point(1, y=2)
print(p, p.x, p[1], len(p), list(p), p == (1, 2), p == Point(1, 2), hash(p) == hash((1, 2)))
x, y = p
print(x, y, type(p).__name__, Point._fields, p._asdict(), p._replace(x=9), Point._make([3, 4]))
Card = collections.namedtuple('Card', 'rank suit')
cards = [Card(r, s) for s in 'sh' for r in '23']
print(cards[0], len(cards), sorted({c.suit for c in cards}))
City = namedtuple('City', 'name country population coordinates', defaults=[None])
tokyo = City('Tokyo', 'JP', 36.933, (35.689722, 139.691667))
print(tokyo, City('X', 'Y', 1))
for a, b in [Point(5, 6)]:
    print(a, b)
print(Point(*(7, 8)), {p: 1}[Point(1, 2)], p[:1], p[-1])
for bad in (lambda: Point(1), lambda: Point(1, 2, 3), lambda: Point(1, 2, z=3), lambda: namedtuple('P', ['a', 'a']), lambda: namedtuple('P', ['_a'])):
    try:
        bad()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
class Seq:
    def __init__(self, n):
        self.n = n
    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError("seq index out of range")
        return i * i
print(list(Seq(4)), 9 in Seq(4), 5 in Seq(4), [x + 1 for x in Seq(3)], sum(Seq(5)))
a, b = Seq(2)
print(a, b)
for x in Seq(3):
    print(x)
class Bad:
    def __getitem__(self, i):
        raise KeyError(i)
try:
    list(Bad())
except KeyError as e:
    print("KeyError", e)
import random
class Deck:
    def __init__(self):
        self._cards = [Card(r, s) for s in "hs" for r in "A23"]
    def __len__(self):
        return len(self._cards)
    def __getitem__(self, i):
        return self._cards[i]
random.seed(7)
deck = Deck()
print(random.choice(deck), random.choice(deck), Card("2", "s") in deck, deck[::3])
