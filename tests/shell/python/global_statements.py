# Every global (and nonlocal) statement of a function applies to the whole
# call, wherever it stands: two global lines, a global in a branch not
# taken, and nonlocal beside global.
a = 1.0
b = 2.0
def f():
    global a
    global b
    a += 1
    b += 1
f()
print(a, b)
def g(flag):
    if flag:
        global a
    a = 10
g(False)
print(a)
def outer():
    x = 1
    def inner():
        nonlocal x
        global b
        x += 5
        b = x
    inner()
    return x
print(outer(), b)
class C:
    count = 0
    def bump(self):
        global a, b
        a, b = b, a
C().bump()
print(a, b)
