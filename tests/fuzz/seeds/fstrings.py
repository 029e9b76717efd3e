import math
x = 2.5
n = 7
name = "loss"
print(f"{name}: {x:.4f} {n:3d} {x!r} {{braces}} {math.pi:>10.3f}")
print(f"{n:05d}|{x:<8.2e}|{name:^9}|{-x:+.1f}")
print("%.3f %d %s" % (x, n, name), "{} {:.2f}".format(n, x))
