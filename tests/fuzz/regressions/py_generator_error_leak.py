# Functions as values: lambdas, closures, nested def, nonlocal, *args,
# functions passed and returned, recursion.
def make_adder(n):
    def add(x):
        return x + n
    return add

add2 = make_adder(2)
print(add2(5), make_adder(10)(1), (lambda a, b=2: a * b)(3))

def counter():
    count = 0
    def inc(step=1):
        nonlocal count
        count += step
        return count
    return inc

c = counter()
c(); c(5)
print(c())

def apply_all(fs, x):
    return [f(x) for f in fs]

print(apply_all([abs, lambda v: v * v, str], -3))

def total(*args):
    return sum(args)

xs = [1, 2, 3]
print(total(), total(*xs), total(1, *xs))

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

print([fib(i) for i in range(10)])

def topo(n):
    order, seen = [], set()
    def build(v):
        if v not in seen:
            seen.add(v)
            for child in range(v):
                build(child)
            order.append(v)
    build(n)
    return order

print(topo(4))
fs = [lambda: i for i in range(3)]
print([f() for f in fs])
key_sorted = sorted(["bb", "a", "ccc"], key=len)
print(key_sorted, max([3, -7, 5], key=abs), min(4, 2, 8))
counter_global = 0
def bump():
    global counter_global
    counter_global += 1
bump(); bump()
print(counter_global)
def gen(n):
    for i in rannnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnge(n):
        if i % 2:
            yield i * i
print(list(gen(6)), sum(gen(6)))
