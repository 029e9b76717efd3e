# open() for reading text, as makemore reads names.txt and gpt.py its
# input.txt; files as context managers, and context managers of one's own.
words = open('python/names_sample.txt', 'r').read().splitlines()
print(words, len(words))
with open('python/names_sample.txt', 'r', encoding='utf-8') as f:
    text = f.read()
print(len(text), f.closed, repr(f))
chars = sorted(list(set(''.join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
print(chars, stoi['e'])
f = open('python/names_sample.txt')
print(repr(f.readline()), repr(f.read(3)), f.readlines())
f.close()
for line in open('python/names_sample.txt'):
    print(line.strip().upper(), end=' ')
print()
for call in [lambda: f.read(), lambda: open('python/no_such_file.txt'),
             lambda: open('python/names_sample.txt', 'rw'), lambda: open('python')]:
    try:
        call()
    except (ValueError, OSError) as e:
        print(type(e).__name__, e)


class Timer:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        print("enter", self.name)
        return self

    def __exit__(self, exc_type, exc, tb):
        print("exit", self.name, exc_type.__name__ if exc_type else None, exc)
        return exc_type is KeyError


with Timer("a") as t, Timer("b"):
    print("body", t.name)
with Timer("swallow"):
    {}['missing']
print("after the swallowed KeyError")
try:
    with Timer("propagate"):
        raise ValueError("v")
except ValueError as e:
    print("caught", e)


def first_word(path):
    with open(path) as f:
        return f.readline().strip()


print(first_word('python/names_sample.txt'))
try:
    with 3:
        pass
except TypeError as e:
    print(e)
