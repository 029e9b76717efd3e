# Set operators and comparisons, divmod, bin/oct/hex and int(text, base), as CPython's.
a = {1, 2, 3}
b = {3, 4}
print(a | b, a & b, a - b, b - a, a ^ b)
print(a <= {1, 2, 3, 4}, a < a, a <= a, {1} < a, a >= {2}, a > a)
s = set('hello') & set('world')
print(sorted(s))
vocab = set(['a', 'b']) | {'c'}
print(sorted(vocab), len(vocab))
print(divmod(17, 5), divmod(-17, 5), divmod(7.5, 2), divmod(-7, -2))
print(bin(5), bin(-5), bin(0), oct(8), hex(255), hex(-4096))
print(int('ff', 16), int('101', 2), int('0x1f', 0), int('z', 36), int(' 42 '), int('-7', 8))
for bad in [lambda: int('9', 8), lambda: bin(2.5), lambda: int(3.5, 2)]:
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
