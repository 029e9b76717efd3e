# Lists, dicts, sets and strings as Python has them.
xs = [3, 1, 2]
ys = xs
ys.append(4)
print(xs, len(xs), xs[-1], xs[1:3], xs[::-1], xs[::2])
xs.sort()
print(xs, xs.pop(), xs, xs.index(2), [0] * 3, [1] + [2, 3])
d = {"a": 1, "b": 2}
d["c"] = 3
d["a"] += 10
print(d, d["a"], d.get("z", 0), "b" in d, len(d))
for k, v in d.items():
    print(k, v)
print(list(d.keys()), list(d.values()), {k: v for k, v in d.items() if v > 2})
del d["b"]
print(d, sorted(d))
s = {3, 1, 2}
s.add(1)
print(len(s), 2 in s, sorted(s))
counts = {}
for ch in "hello":
    counts[ch] = counts.get(ch, 0) + 1
print(counts)
words = "the quick  brown fox".split()
print(words, "-".join(words), "Fox".lower(), "fox".upper(), " pad ".strip())
print("a,b,,c".split(","), "abc"[1], "abc"[-1], "abcdef"[1:4], "x".join("abc"))
t = (1, "two", 3.0)
a, b, c = t
print(t, a, b, c, t[1:], (1,), ())
print("%s has %d items, %.3f" % ("list", 3, 2.0 / 3), "{} + {} = {:.1f}".format(1, 2, 3))
print(any([0, 0, 1]), all([1, 1, 0]), list(map(lambda v: v + 1, [1, 2])), list(filter(None, [0, 1, 2])))
print(list(zip([1, 2, 3], "ab")), list(enumerate("ab", start=1)), list(reversed([1, 2, 3])))
print(int("42") + 1, float("2.5"), str(7) + "!", repr("q"), bool([]), isinstance(3, int), isinstance(3.0, (int, float)))
print(ord("a"), chr(98), round(2.5), round(3.14159, 2), abs(-4))
