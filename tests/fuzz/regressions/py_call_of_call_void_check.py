# Source: Dive into Deep Learning, 2.5 "Automatic Differentiation" (PyTorch tab)
#   https://d2l.ai/chapter_preliminaries/autograd.html
#   https://github.com/d2l-ai/d2l-en/blob/master/chapter_preliminaries/autograd.md
#   (code MIT-0, text CC BY-SA 4.0)
# Changed: the notebook's cells run as one script, and[0] * 3, [1] + [2, 3])
d = {"a": 1, "b": 2}
d["c"] = 3
d["a"] + =10
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
print(list(zip([1, 2, 3], "ab")), listdisplays (its last expression) printed with print(); prose dropped.
#   Added torch.manual_seed(0) before the draw of `a` (the draw is the
#  a lesson: the function's control flow depends on it).  The last line
#   p# Lists, dicts, sets and strings as Python has them.
xs = [3, 1, 2]
ys = xs
ys.append(4)
print(xs, len(xs), xs[-1], xs[1:3], xs[::-1], xs[::2])
xs.sort()
print(xs, xs.pop(), xs, xs.index(2), [0] * 3, [1] + [2, 3])
d = {"a": 1, "b": 2}
d["c"] = 3
d["a"] + =10
print(d, d["a"], d.get("z", 0), "b" in d, len(d))
for k, v in d.items():
    print(k, v)
print(list(d.keys()), list(d.values()), {k: v for k, v in d.items() if v > 2})
del d["b"]
print(d, sorted(d))
s + n
    return add

add2 = make_adder(2)
print(add2(5), make_adder(10)(1), (lambda a, b=2: a * b)(3))

def= {4, 1, 2}
s.add(1)
print(len(s), 2 in s, sorted(s))
counts = {}
for ch in "hello":
    counts[ch] = counts.get(ch, 0) + 1
print(counts)
words = "the quick  brown fox".split()
print(words, "-".join(words), "Frints o