# One-line bodies followed by elif, else, except and finally on the next
# line (if x: a / elif y: b), in functions and at the top level.
def f(x):
    if x == 1: return 'one'
    elif x == 2: return 'two'
    else: return 'many'
print(f(1), f(2), f(3))
for i in range(2): pass
else: print('for else')
n = 0
while n < 2: n += 1
else: print('while else', n)
try: 1 / 0
except ZeroDivisionError: print('zde')
else: print('no')
finally: print('fin')
try: x = 1
except ValueError: print('ve')
else: print('else ran')
def g(a, b):
    if a:
        if b: return 'ab'
    elif b: return 'b only'
    return 'neither'
print(g(1, 1), g(1, 0), g(0, 1), g(0, 0))
if 0: print('x'); print('y')
elif 1: print('z'); print('w')
if 1: print('then')

# a comment between
if 0: print(1)
# comment

elif 1: print('after comment and a blank line')
try: raise KeyError('k')
except KeyError as e: print('caught', e)
