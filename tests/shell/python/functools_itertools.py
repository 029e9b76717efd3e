# functools (partial, reduce, lru_cache, cache, cmp_to_key) and itertools (made at
# once, as iterators over lists), and pow's three forms, as CPython's.
import functools
from functools import partial, reduce, lru_cache
import itertools as it
from itertools import product, permutations, combinations, chain
def power(base, exp): return base ** exp
square = partial(power, exp=2)
print(square(5), partial(power, 2)(10), reduce(lambda a, b: a * b, [1, 2, 3, 4]), reduce(lambda a, b: a + b, [], 10))
@lru_cache(maxsize=None)
def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(80))
@functools.cache
def f2(n): return n * 2
print(f2(3), f2(3))
print(sorted([3, 1, 2], key=functools.cmp_to_key(lambda a, b: b - a)))
print(list(product([1, 2], 'ab')), list(product(range(2), repeat=2)))
print(list(permutations('abc', 2)), list(combinations(range(4), 3)), list(it.combinations_with_replacement('ab', 2)))
print(list(chain([1], (2, 3))), list(chain.from_iterable([[1], [2, 3]])))
print(list(it.accumulate([1, 2, 3])), list(it.accumulate([1, 2, 3], lambda a, b: a * b, initial=10)))
print(list(it.islice(range(10), 3)), list(it.islice(range(10), 2, 8, 2)))
print(list(it.zip_longest([1, 2, 3], 'ab', fillvalue='-')))
print([(k, list(g)) for k, g in it.groupby('aabbbc')])
print(list(it.starmap(pow, [(2, 3), (3, 2)])), list(it.compress('abcd', [1, 0, 1, 0])))
print(list(it.takewhile(lambda x: x < 3, [1, 2, 5, 1])), list(it.dropwhile(lambda x: x < 3, [1, 2, 5, 1])))
print(list(it.filterfalse(lambda x: x % 2, range(6))), list(it.pairwise([1, 2, 3])), list(it.repeat('x', 3)))
a, b = it.tee([1, 2])
print(list(a), list(b), next(permutations([1, 2])))
for x, y in zip(range(3), it.repeat(7, 3)): print(x, y)
print(repr(partial(power, 2, exp=3))[:26])
print(pow(2, 3), pow(2.0, 0.5), pow(2, -1), pow(3, 2, 5), pow(3, -1, 7), pow(-3, 3, 7), pow(3, 3, -7), pow(10, 20, 97))
f = pow
print(f(2, 10), list(map(pow, [2, 3], [2, 2])))
for bad in (lambda: pow(2, 3, 0), lambda: pow(2.0, 3, 5), lambda: pow(2, -1, 4)):
    try: bad()
    except (ValueError, TypeError) as e: print(type(e).__name__, e)
from functools import cached_property
class Circle:
    calls = 0
    def __init__(self, r):
        self.r = r
    @cached_property
    def area(self):
        Circle.calls += 1
        return 3 * self.r ** 2
c = Circle(2)
print(c.area, c.area, Circle.calls, vars(c))
