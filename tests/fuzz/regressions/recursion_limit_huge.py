# Unbounded recursion under a limit no stack holds: RecursionError when the
# stack guard says so, never a crash (ag runs on a 512 MiB stack).
import sys
sys.setrecursionlimit(10**9)
def down(n):
    return down(n + 1)
down(0)
