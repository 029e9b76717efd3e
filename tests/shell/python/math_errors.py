# math's functions raise CPython's errors where a number gives no number:
# OverflowError where the result is too large (exp, cosh, gamma, pow),
# ValueError where it has none (log(0), sqrt(-1), a pole of gamma).
import math
def attempt(f, *args):
    try:
        print(f.__name__, args, f(*args))
    except (ValueError, OverflowError) as e:
        print(f.__name__, args, type(e).__name__, e)
for f, args in [(math.exp, (1000,)), (math.exp, (-1000,)), (math.exp, (math.inf,)),
                (math.log, (0,)), (math.log, (-1,)), (math.log, (math.inf,)),
                (math.sqrt, (-1,)), (math.log1p, (-1,)), (math.expm1, (1000,)),
                (math.cosh, (1000,)), (math.sinh, (-1000,)), (math.sin, (math.inf,)),
                (math.gamma, (0,)), (math.gamma, (-2,)), (math.gamma, (200,)),
                (math.lgamma, (0,)), (math.lgamma, (-3,)), (math.lgamma, (1e308,)),
                (math.pow, (10, 400)), (math.pow, (0, -1)), (math.pow, (-8, 1 / 3)),
                (math.fmod, (1, 0)), (math.fmod, (math.inf, 1)), (math.atan2, (1, 0)),
                (math.hypot, (1e308, 1e308)), (math.degrees, (1e308,)),
                (math.log10, (0.0,)), (math.acos, (2,)), (math.tanh, (1000,))]:
    attempt(f, *args)
def sigmoid(z):
    return 1 / (1 + math.exp(-z))
print(sigmoid(3))
try:
    sigmoid(-1000)
except OverflowError:
    print("sigmoid(-1000) overflows, as in CPython")
