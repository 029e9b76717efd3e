"""compare.py -- what counts as agreement between ag and PyTorch.

Element by element, with the values read exactly from both sides:

  exact      the same double (every nan equals every nan: ag prints no
             nan sign or payload, and PyTorch promises neither), and for
             zeros the same sign;
  tolerated  a zero of the other sign ('-0'), or finite values at most
             ULP_TOL units in the last place apart ('ulps'), where
             ulps counts the doubles between them;
  otherwise  a disagreement: 'nan' (nan on one side only), 'inf' (an
             infinity on one side, or of the other sign), 'value' (finite,
             further apart), 'shape', 'grad-none' (a gradient None on one
             side only), 'ag-error' / 'torch-error' (one side refused a
             statement the other ran; both refusing the same statement
             agrees), 'crash' (ag crashed or hung); for dtypes.py's
             programs also 'dtype' (another dtype or requires_grad) and
             'error-type' (both refuse a statement, with another
             exception type).

Why ULP_TOL and not 0 or a relative tolerance: ag aims at PyTorch's last
digit and is compared exactly first (the 'exact' figure). But a few results
legitimately differ in the last bits: exp, log, sin, tanh... come from
different libms (glibc's vector libmvec in ag, SLEEF or glibc in PyTorch,
each within 1-4 ulps), and sums over many elements may be added in another
order (PyTorch's reductions are vectorised and cascaded). Those differences
are a few ulps in the op that makes them; ULP_TOL allows them. They do grow
through later ops (a difference of nearly equal values turns a 1-ulp
difference into many), so a program can legitimately exceed the bound too:
that is why every disagreement is shrunk to a minimal program before anyone
reads it, and why 'value' mismatches of a minimal program are what to look at.
"""
import math
import struct
from dataclasses import dataclass

ULP_TOL = 4

# Most severe first: a program's category is its most severe mismatch.
SEVERITY = ['crash', 'ag-error', 'torch-error', 'error-type', 'dtype', 'shape', 'grad-none',
            'nan', 'inf', 'value',
            'amplified', 'ulps', '-0']
TOLERATED = {'amplified', 'ulps', '-0'}


@dataclass
class Mismatch:
    kind: str
    key: tuple          # ('value', name) / ('grad', leaf); None for errors
    detail: str
    ulps: int = 0


def ordered(x):
    """Doubles as integers in their order, so that ulps are differences."""
    i = struct.unpack('<q', struct.pack('<d', x))[0]
    return i if i >= 0 else -(i & 0x7FFFFFFFFFFFFFFF)


def ulps(a, b):
    return abs(ordered(a) - ordered(b))


def element(a, b):
    """None if a (ag) and b (PyTorch) agree exactly, else the mismatch kind."""
    if math.isnan(a) or math.isnan(b):
        return None if math.isnan(a) and math.isnan(b) else 'nan'
    if math.isinf(a) or math.isinf(b):
        return None if a == b else 'inf'
    if a == 0 and b == 0:
        return None if math.copysign(1, a) == math.copysign(1, b) else '-0'
    if a == b:
        return None
    return 'ulps' if ulps(a, b) <= ULP_TOL else 'value'


def compare(prog, tres, ares):
    """Every mismatch between PyTorch's result tres and ag's ares."""
    out = []
    if ares.crash:
        out.append(Mismatch('crash', None, ares.crash))
    te, ae = tres.error, ares.error
    if te and ae and te[0] == ae[0]:
        pass  # both refuse the same statement
    elif ae and (not te or ae[0] < te[0]):
        out.append(Mismatch('ag-error', None, f'statement {ae[0] + 1}: {ae[1]}'))
    elif te and not ares.crash and not ares.stopped and (not ae or te[0] < ae[0]):
        out.append(Mismatch('torch-error', None, f'statement {te[0] + 1}: {te[1]}'))
    for key, tv in tres.items.items():
        if key not in ares.items:
            continue  # ag stopped before it: reported above
        av = ares.items[key]
        if (tv is None) != (av is None):
            out.append(Mismatch('grad-none', key, f'ag {av and "a tensor"}, PyTorch {tv and "a tensor"}'))
            continue
        if tv is None:
            continue
        if tv[0] != av[0]:
            out.append(Mismatch('shape', key, f'ag {av[0]}, PyTorch {tv[0]}'))
            continue
        worst = None
        for k, (a, b) in enumerate(zip(av[1], tv[1])):
            kind = element(a, b)
            if kind and (worst is None or SEVERITY.index(kind) < SEVERITY.index(worst[0])
                         or (kind == worst[0] and kind in ('ulps', 'value') and ulps(a, b) > worst[3])):
                worst = (kind, k, (a, b), ulps(a, b) if kind in ('ulps', 'value') else 0)
        if worst:
            kind, k, (a, b), u = worst
            out.append(Mismatch(kind, key, f'[{k}] ag {a!r}, PyTorch {b!r}', u))
    return out


def anchor(mismatches, ares, anchored):
    """A 'nan', 'inf' or 'value' mismatch that the anchored replay (PyTorch
    given ag's own values for everything computed before: engines.
    run_anchored) brings within the tolerance becomes 'amplified': an
    earlier op's tolerated difference, grown by what came after."""
    for m in mismatches:
        if m.kind not in ('nan', 'inf', 'value') or not m.key:
            continue
        tv, av = anchored.items.get(m.key), ares.items.get(m.key)
        if tv and av and tv[0] == av[0] and all(
                element(a, b) in (None, 'ulps', '-0') for a, b in zip(av[1], tv[1])):
            m.kind = 'amplified'


def category(mismatches):
    """The most severe kind, or None when the program agrees exactly."""
    kinds = [m.kind for m in mismatches]
    return min(kinds, key=SEVERITY.index) if kinds else None
