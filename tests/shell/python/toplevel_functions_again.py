# A lambda or def at the top level, made again at each turn of a loop: the
# tree parsed the first time serves the next (session.c, parsed_before),
# and each function made still has its own defaults, closure and name.
total = 0
for i in range(5):
    f = lambda x, k=i: x * 10 + k
    total = f(total)
print(total)
made = []
for i in range(3):
    def g(x, k=i):
        return x + k
    made.append(g)
print([h(100) for h in made], made[0] is made[1], made[2].__name__)
adders = [lambda y: y + n for n in range(3)]
print([a(1) for a in adders])
for i in range(2):
    square = lambda v: v * v
    cube = lambda v: v * v * v
    print(square(i + 2), cube(i + 2))
for i in range(3):
    class Box:
        size = i
        def get(self, extra=i):
            return self.size + extra
    print(Box().get(), Box().get(10))
