# What iter() and a generator's call give are used up as they are read, as
# Python's iterators: list(it) twice, a for loop left by break, next() in
# the loop's body, islice taking from the front (fastcore's chunked, which
# looped forever before), iter(it) is it.
from itertools import islice

it = iter([1, 2, 3, 4])
print(list(it), list(it))
it2 = iter([1, 2, 3])
for x in it2:
    break
print(list(it2), type(it2).__name__, iter(it2) is it2)
it3 = iter([1, 2, 3, 4, 5, 6])
for x in it3:
    print(x, next(it3))


def gen():
    yield 1
    yield 2
    yield 3


g = gen()
print(next(g), list(g), list(g), isinstance(g, list))
it4 = iter(range(6))
print(list(islice(it4, 2)), list(islice(it4, 2)), next(it4), list(islice(it4, 0, None, 2)))


def chunked(items, size):
    items = iter(items)
    while True:
        res = list(islice(items, size))
        if not res:
            break
        yield res


print(list(chunked(range(7), 3)), sum(1 for _ in chunked("abcd", 2)))
