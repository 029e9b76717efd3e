# A module that import_local.py imports (python_subset skips mod_*.py).
NAME = 'helpers'
calls = []


def square(x):
    calls.append(x)
    return x * x


class Counter:
    def __init__(self):
        self.n = 0

    def incr(self):
        self.n += 1
        return self


calls.append('loaded')

if __name__ == "__main__":
    print("mod_helpers run as a script: never on import")
MODULE_NAME = __name__
