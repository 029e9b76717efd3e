# try/except/else/finally as CPython runs them: which clause catches what,
# the exception object (str, repr, args, type), raise again, finally's order.
import torch


def divide(a, b):
    try:
        r = a / b
    except ZeroDivisionError as e:
        print("ZeroDivisionError caught:", e)
        return None
    else:
        print("no error, r =", r)
        return r
    finally:
        print("finally for", a, b)


print(divide(6, 3))
print(divide(1, 0))

# the hierarchy: ArithmeticError, LookupError, Exception
for thunk in [lambda: 1 // 0, lambda: [1, 2][5], lambda: {'a': 1}['b'], lambda: int('x')]:
    try:
        thunk()
    except ArithmeticError as e:
        print("arithmetic:", type(e).__name__, e)
    except LookupError as e:
        print("lookup:", type(e).__name__, e, repr(e) if isinstance(e, IndexError) else "")
    except Exception as e:
        print("other:", type(e).__name__, e)

# a tuple of classes; e.args; a bare except
try:
    raise ValueError("bad value", 3)
except (TypeError, ValueError) as e:
    print(type(e).__name__, e.args, str(e), repr(e))

try:
    undefined_name + 1
except:
    print("bare except caught it")

# the name is unbound after the clause, as CPython deletes it
try:
    raise KeyError('k')
except KeyError as err:
    print(str(err), repr(err), err.args)
try:
    print(err)
except NameError as e:
    print("unbound:", e)


# classes of one's own
class TrainingError(Exception):
    pass


class DivergedError(TrainingError):
    def __init__(self, step, loss):
        super().__init__(f"loss {loss} at step {step}")
        self.step = step
        self.loss = loss


try:
    raise DivergedError(7, float('inf'))
except TrainingError as e:
    print(type(e).__name__, e, e.step, e.loss, isinstance(e, Exception))


# raise again, from a handler, through a function
def check(x):
    try:
        if x < 0:
            raise ValueError(f"negative: {x}")
        return x
    except ValueError:
        print("logging, then raising again")
        raise


try:
    check(-2)
except ValueError as e:
    print("outer caught:", e)

# finally runs on break, continue and return
for i in range(3):
    try:
        if i == 0:
            continue
        if i == 2:
            break
        print("body", i)
    finally:
        print("finally", i)


def early():
    try:
        return "from try"
    finally:
        print("finally before the return")


print(early())


def overridden():
    try:
        raise RuntimeError("lost")
    finally:
        return "finally's return wins"


print(overridden())

# an error inside except replaces the first
try:
    try:
        1 / 0
    except ZeroDivisionError:
        [][0]
except IndexError as e:
    print("the second:", e)

# torch's errors are RuntimeErrors, with PyTorch's message
x = torch.tensor([1.0, 2.0])
try:
    x.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)

w = torch.tensor([1.0], requires_grad=True)
loss = (w * 2).sum()
loss.backward()
try:
    loss.backward()
except RuntimeError as e:
    print("second backward:", str(e)[:60])

try:
    torch.zeros(2, 3)[2]
except IndexError as e:
    print("IndexError:", e)

# else runs only without an exception; nested try
try:
    v = 1
except Exception:
    print("not here")
else:
    print("else ran, v =", v)

try:
    try:
        raise TypeError("inner")
    finally:
        print("inner finally")
except TypeError as e:
    print("caught after the inner finally:", e)

# isinstance against the built-in classes
e = ZeroDivisionError("z")
print(isinstance(e, ArithmeticError), isinstance(e, LookupError), isinstance(e, BaseException))
