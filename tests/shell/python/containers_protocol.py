# An object as a container: __len__, __getitem__, __iter__ (a list, iter()
# of one, or a generator's values) and __contains__, reached by len, [],
# for, comprehensions, list, sum, zip, *args and in.
class Dataset:
    def __init__(self, n):
        self.xs = [i * 0.5 for i in range(n)]
        self.ys = [2 * x + 1 for x in self.xs]

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, i):
        return self.xs[i], self.ys[i]

    def __iter__(self):
        return iter(list(zip(self.xs, self.ys)))


class Bag:
    def __init__(self, *items):
        self.items = list(items)

    def __iter__(self):
        for x in self.items:
            yield x

    def __contains__(self, x):
        return x in self.items


d = Dataset(4)
print(len(d), d[0], d[-1], d[2][1])
for x, y in d:
    print(x, y)
print([y for _, y in d], list(d)[1], sum(x for x, _ in d))
b = Bag(3, 1, 2)
print(list(b), sorted(b), 2 in b, 5 in b, 5 not in b, max(*b))
print([i * 10 for i in b], dict(zip(b, "abc")))
class Plain:
    pass
print(len(Dataset(0)), isinstance(d, Dataset))
class Empty:
    def __len__(self):
        return 0
class No:
    def __bool__(self):
        return False
for o in [Empty(), No(), Plain(), Dataset(1)]:
    print(bool(o), not o, "yes" if o else "no")
class Grid:
    def __init__(self):
        self.cells = {}
    def __setitem__(self, key, value):
        self.cells[key] = value
    def __getitem__(self, key):
        return self.cells.get(key, 0)
g = Grid()
g[(1, 2)] = 5
g["a"] = [1]
print(g[(1, 2)], g["a"], g[0], len(g.cells))
