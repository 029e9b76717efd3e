# list.remove, dict.clear and popitem, set.pop, clear, union and its kin
# (with any iterable), the _update forms and the subset tests, as CPython's;
# and their errors. (set.pop() takes ag's first item: CPython's follows its
# hash table, which for small ints is the same.)
a = [1, 2, 3, 2]
a.remove(2)
print(a)
d = {"a": 1, "b": 2, "c": 3}
print(d.popitem(), d)
d.clear()
print(d, len(d))
s = {1, 2, 3}
print(s.union({4}), s.union([5, 1]), s.intersection({2, 9}), s.intersection(range(3)))
print(s.difference({1}), s.symmetric_difference({3, 4}), s)
print(s.issubset({1, 2, 3, 4}), s.issubset([1]), s.issuperset({1}), s.isdisjoint({7}),
      s.isdisjoint((3,)))
t = {1, 2, 3, 4}
t.intersection_update([2, 3, 5])
print(t)
t.difference_update({3})
print(t)
t.symmetric_difference_update({2, 8})
print(t)
u = {1, 2}
print(u.pop(), u)
u.clear()
print(u)
for bad in (lambda: [1].remove(5), lambda: {}.popitem(), lambda: set().pop(), lambda: {}.pop(),
            lambda: {1}.pop(1), lambda: (1, 2).remove(1), lambda: {1: 2}.union({3}),
            lambda: {1}.union([[1]])):
    try:
        bad()
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        print(type(e).__name__, e)
