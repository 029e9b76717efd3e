# A for loop's target may be an attribute or an item, as in Python (D2L's
# Trainer.fit: for self.epoch in range(...)). Expected: CPython's.
class T:
    def fit(self):
        for self.epoch in range(3):
            pass
        return self.epoch
print(T().fit())
d = {}
for d["k"] in [1, 2]:
    print(d)
xs = [0, 0]
for xs[0], xs[1] in [(1, 2), (3, 4)]:
    pass
print(xs, [y for y in range(3)], [a + b for a, b in [(1, 2)]])
