# The paths of try and with that try_except.py does not take: an error in
# finally replaces the first, raise of a class, a bare raise after an inner
# clause, an error from C seen by __exit__, __exit__'s own error, and an
# except clause whose type is itself an error.
def cleanup_fails():
    try:
        raise ValueError("first")
    finally:
        {}["from finally"]


try:
    cleanup_fails()
except KeyError as e:
    print("KeyError replaced it:", e)
except ValueError:
    print("not this one")

try:
    raise StopIteration
except StopIteration as e:
    print("a class raised:", repr(e), e.args)

try:
    try:
        raise TypeError("outer")
    except TypeError:
        try:
            raise ValueError("inner")
        except ValueError:
            pass
        raise
except TypeError as e:
    print("the outer again:", e)


class Probe:
    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        print("exit saw", kind.__name__, value)  # tb: None in ag (docs)
        return False


try:
    with Probe():
        1 / 0
except ZeroDivisionError as e:
    print("then caught:", e)


class Breaks:
    def __enter__(self):
        return self

    def __exit__(self, *args):
        raise RuntimeError("exit failed")


try:
    with Breaks():
        raise ValueError("body")
except RuntimeError as e:
    print("__exit__'s error wins:", e)

try:
    try:
        1 / 0
    except undefined_name:
        print("never")
except NameError as e:
    print("the clause's own error:", e)
