# dict.fromkeys: every key bound to the one value (shared, as CPython's).
print(dict.fromkeys(['a', 'b'], 0), dict.fromkeys('xy'), dict.fromkeys(range(3), []))
d = dict.fromkeys(['p', 'q'], [])
d['p'].append(1)
print(d)
print(dict.fromkeys([]), dict.fromkeys((1, 1, 2), 'v'))
try:
    dict.fromkeys([[1]])
except TypeError as e:
    print(e)
try:
    dict.nokey(3)
except AttributeError as e:
    print(e)
