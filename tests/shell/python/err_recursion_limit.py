# A recursion past sys.setrecursionlimit: RecursionError, on its line.
import sys
sys.setrecursionlimit(50)
def down(n):
    return down(n + 1)
down(0)
