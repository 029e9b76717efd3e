"""dtypes.py -- random programs over dtypes and in-place statements, in
Python, run by ag as a .py program (`ag --python -`) and by PyTorch.

The main generator (program.py) writes ag's own dialect, where a number is
a float and a list of tensors is a literal: it cannot say
`torch.tensor([1, 2])` (int64) or `L = [a, b]; L[0] += 1` (an alias). These
programs are Python text, the same text for both sides, so what is compared
is exactly what a .py file means in each. They cover:

- tensors of every dtype: `torch.tensor` of int, float and bool literals,
  `dtype=` on tensor/zeros/ones/full/arange/zeros_like/ones_like, leaves
  requiring grad in float64 and float32;
- casts of intermediate values: .float() .double() .long() .int() .bool()
  .half()-free .to(dtype) .to(dtype=) .type(dtype);
- arithmetic mixing dtypes and Python scalars (promotion), comparisons,
  & | ^ ~, sum/argmax/max/min/mean/abs/exp/sqrt/where/clamp of any dtype;
- in-place statements on tensors that do not require grad: += -= *= /=,
  x[i] = v, x[mask] = v, add_ sub_ mul_ zero_ clamp_ fill_, &= |=, through a
  second name or a list holding the tensor (every alias is reported after);
- in-place statements PyTorch records, on floating intermediates and on
  floating constants with operands that may require grad: += -= *= /=,
  x[i] = v, x[mask] op= v, add_ sub_ mul_ div_ and unary methods; a later
  backward sends gradients through them (or both refuse it);
- gradients of float64 and float32 leaves through mixed-dtype expressions,
  and `with torch.no_grad(): w -= lr * w.grad` updates, w.grad.zero_(),
  w.grad = None, then another backward;
- statements PyTorch refuses (an in-place op on a leaf that requires grad,
  a float result written into an int tensor, a bitwise op on floats, an int
  division by zero, a backward through a tensor changed in place since it
  was saved): one at most, last; ag must raise the same exception type.

Each reported value is compared with its dtype, shape and requires_grad;
float32 values by their float32 bits (ulps counted in float32).

Departures avoided on purpose (ag stores every element as a double, and
has no views yet, docs/language.md): int64 values beyond 2**53; a value
that is a view of another (x[i], x.T) when either is changed in place;
casts of nan, inf or out-of-range floats to integers (undefined in C).
"""
import ast
import math
import random
import re
import struct
import subprocess
from dataclasses import dataclass, field

import torch

from compare import Mismatch, ULP_TOL, element

PRELUDE = '''import math, torch
torch.set_default_dtype(torch.float64)
inf, nan = math.inf, math.nan
def _rep(k, i, n, t):
    if t is None:
        print('@', k, i, n, '|', None)
    else:
        print('@', k, i, n, '|', t.dtype, '|', tuple(t.shape), '|', t.requires_grad, '|', t.tolist())
'''.splitlines()

DTYPES = ['float64', 'float32', 'int64', 'int32', 'bool']
FLOATS = ('float64', 'float32')
INTS = ('int64', 'int32')
CASTS = {'float32': ['.float()', '.to(torch.float32)', '.type(torch.float32)', '.to(dtype=torch.float)'],
         'float64': ['.double()', '.to(torch.float64)', '.type(torch.double)', '.to(dtype=torch.float64)'],
         'int64': ['.long()', '.to(torch.int64)', '.type(torch.long)'],
         'int32': ['.int()', '.to(torch.int32)', '.to(dtype=torch.int)'],
         'bool': ['.bool()', '.to(torch.bool)', '.type(torch.bool)']}
SHAPES = [(), (3,), (2, 3), (1, 3), (2, 1), (2,)]


@dataclass
class Stmt:
    text: str
    reports: list = field(default_factory=list)   # expressions reported after it
    tags: list = field(default_factory=list)      # what it exercises (the tallies)


@dataclass
class DProgram:
    stmts: list = field(default_factory=list)
    kind = 'dtypes'


@dataclass
class DResult:
    items: dict = field(default_factory=dict)  # (stmt, expr) -> (dtype, shape, rg, values) or None
    error: tuple = None    # (stmt, 'Type: message')
    crash: str = None


def ops_used(prog):
    return sorted({t for st in prog.stmts for t in st.tags})


def features(prog):
    f = {'dtypes program'}
    if any('error' in st.tags for st in prog.stmts):
        f.add('dtypes: refused statement')
    return f


def render(prog, k=0):
    """(lines, where): the program's lines, reports included, and for each
    line its statement index (None for the prelude)."""
    lines, where = list(PRELUDE), [None] * len(PRELUDE)
    for i, st in enumerate(prog.stmts):
        for line in st.text.split('\n'):
            lines.append(line)
            where.append(i)
        for r in st.reports:
            lines.append(f"_rep({k}, {i}, {r!r}, {r})")
            where.append(i)
    return lines, where


def text(prog):
    return '\n'.join(render(prog)[0]) + '\n'


# ---- running -------------------------------------------------------------------

def snapshot(t):
    if t is None:
        return None
    # a clone: PyTorch's tolist() refuses a gradient of zeros it made
    # without storage (abs's double backward), where the clone has storage
    return (dname(t), tuple(t.shape), bool(t.requires_grad), flat(t.detach().clone().tolist()))


def flat(v):
    return [x for y in v for x in flat(y)] if isinstance(v, list) else [v]


def run_torch(prog):
    res, ns = DResult(), {}
    exec('\n'.join(PRELUDE), ns)
    for i, st in enumerate(prog.stmts):
        try:
            exec(st.text, ns)
            for r in st.reports:  # a report of a name a shrunk program lost fails too
                res.items[(i, r)] = snapshot(eval(r, ns))
        except Exception as e:
            msg = str(e).strip().splitlines()[0] if str(e).strip() else ''
            res.error = (i, f'{type(e).__name__}: {msg}')
            return res
    return res


REPORT = re.compile(r'^@ (\d+) (\d+) (.*?) \| (.*)$')
ERROR = re.compile(r'^<stdin>:(\d+):(\d+): error: (.*)$', re.M)
VALUES = {'nan': math.nan, 'inf': math.inf, 'True': True, 'False': False, 'None': None}


def parse(rest):
    parts = rest.split(' | ')
    if parts == ['None']:
        return None
    dtype, shape, rg, values = parts
    return (dtype.replace('torch.', ''), ast.literal_eval(shape), rg == 'True',
            flat(eval(values, {'__builtins__': {}}, VALUES)))


def run_ag(ag, progs, timeout=60):
    """One DResult per program, all in one `ag --python -` (:reset between
    programs); after the program that raised, the rest run again; after a
    crash or a hang, one by one."""
    results = [DResult() for _ in progs]
    start = 0
    while start < len(progs):
        lines, where = [], []
        for k in range(start, len(progs)):
            lines.append(':reset')
            where.append((k, None))
            pl, pw = render(progs[k], k)
            lines += pl
            where += [(k, i) for i in pw]
        try:
            proc = subprocess.run([ag, '--python', '-'], input='\n'.join(lines) + '\n',
                                  capture_output=True, text=True, timeout=timeout)
            out, err, rc = proc.stdout, proc.stderr, proc.returncode
        except subprocess.TimeoutExpired:
            out, err, rc = '', '', 'timeout'
        m = ERROR.search(err)
        if rc not in (0, 1) or (rc == 1 and not m):
            if len(progs) - start == 1:
                results[start].crash = ('hang (no answer in %ds)' % timeout if rc == 'timeout' else
                                        f'exit status {rc}: ' + ' | '.join(err.strip().splitlines()[:3]))
                return results
            for k in range(start, len(progs)):
                results[k] = run_ag(ag, [progs[k]], timeout=10)[0]
            return results
        for line in out.splitlines():
            mr = REPORT.match(line)
            if not mr:
                continue
            k, i, name = int(mr.group(1)), int(mr.group(2)), mr.group(3)
            try:
                results[k].items[(i, name)] = parse(mr.group(4))
            except (ValueError, SyntaxError, TypeError) as e:
                results[k].crash = f'harness: cannot read {name}: {e}'
        if not m:
            return results
        k, i = where[int(m.group(1)) - 1]
        if i is None:
            results[k].crash = f'harness: error in the prelude: {m.group(3)}'
        else:
            results[k].error = (i, m.group(3))
        start = k + 1
    return results


# ---- comparing -----------------------------------------------------------------

def ulps32(a, b):
    o = [struct.unpack('<i', struct.pack('<f', x))[0] for x in (a, b)]
    o = [i if i >= 0 else -(i & 0x7FFFFFFF) for i in o]
    return abs(o[0] - o[1])


def element32(a, b):
    kind = element(a, b)
    if kind in ('ulps', 'value'):
        return 'ulps' if ulps32(a, b) <= ULP_TOL else 'value'
    return kind


def etype(msg):
    return msg.split(':', 1)[0]


def compare(prog, tres, ares):
    out = []
    if ares.crash:
        out.append(Mismatch('crash', None, ares.crash))
    te, ae = tres.error, ares.error
    if te and ae and te[0] == ae[0]:
        if etype(te[1]) != etype(ae[1]):
            out.append(Mismatch('error-type', None, f'statement {te[0] + 1}: ag {ae[1]}; '
                                                    f'PyTorch {te[1]}'))
    elif ae and (not te or ae[0] < te[0]):
        out.append(Mismatch('ag-error', None, f'statement {ae[0] + 1}: {ae[1]}'))
    elif te and not ares.crash and (not ae or te[0] < ae[0]):
        out.append(Mismatch('torch-error', None, f'statement {te[0] + 1}: {te[1]}'))
    for key, tv in tres.items.items():
        if key not in ares.items:
            continue
        av = ares.items[key]
        mk = ('value', key[1], key[0])
        if (tv is None) != (av is None):
            out.append(Mismatch('grad-none', mk, f'ag {av and "a tensor"}, PyTorch {tv and "a tensor"}'))
            continue
        if tv is None:
            continue
        if tv[0] != av[0] or tv[2] != av[2]:
            out.append(Mismatch('dtype', mk, f'ag {av[0]} requires_grad={av[2]}, '
                                             f'PyTorch {tv[0]} requires_grad={tv[2]}'))
            continue
        if tv[1] != av[1] or len(tv[3]) != len(av[3]):
            out.append(Mismatch('shape', mk, f'ag {av[1]}, PyTorch {tv[1]}'))
            continue
        out += values(mk, tv[0], av[3], tv[3], uses_float32(prog))
    return out


def uses_float32(prog):
    return any('float32' in st.text or '.float()' in st.text or 'torch.float)' in st.text
               for st in prog.stmts)


def values(mk, dtype, av, tv, f32):
    """The worst mismatch of one value's elements. f32: the program has
    float32 values, whose last bits may differ (ag's float32 exp, pow...
    are its double results rounded, PyTorch's SLEEF float kernels are
    within an ulp or two of them): a float64 value made from them that
    agrees within ULP_TOL float32 ulps is 'amplified' (tolerated), as
    program.py's anchored replay would call it."""
    worst = None
    for k, (a, b) in enumerate(zip(av, tv)):
        if dtype in FLOATS:
            kind = (element32 if dtype == 'float32' else element)(float(a), float(b))
            if kind == 'value' and f32 and element32(float(a), float(b)) == 'ulps':
                kind = 'amplified'
        else:
            kind = None if a == b and type(a) is type(b) else 'value'
        if kind and (worst is None or SEV.index(kind) < SEV.index(worst[0])):
            worst = (kind, k, a, b)
    if not worst:
        return []
    kind, k, a, b = worst
    u = (ulps32(a, b) if dtype == 'float32' else ulps(a, b)) if kind in ('ulps', 'value') \
        and dtype in FLOATS else 0
    return [Mismatch(kind, mk, f'[{k}] ag {a!r}, PyTorch {b!r} ({dtype})', u)]


def ulps(a, b):
    from compare import ulps as u
    return u(a, b)


SEV = ['nan', 'inf', 'value', 'amplified', 'ulps', '-0']


# ---- the generator -------------------------------------------------------------

class Retry(Exception):
    pass


def dname(t):
    return str(t.dtype).replace('torch.', '')


class DGen:
    def __init__(self, rng):
        self.rng = rng
        self.prog = DProgram()
        self.count = {}
        self.lists = {}   # list name -> item count
        self.stale = set()  # values whose graph a backward freed (in ag: docs/language.md)
        self.reset_ns()

    def reset_ns(self):
        self.ns = {}
        exec('\n'.join(PRELUDE), self.ns)
        for st in self.prog.stmts:
            exec(st.text, self.ns)

    def name(self, p):
        n = self.count.get(p, 0)
        self.count[p] = n + 1
        return f'{p}{n}'

    def tensors(self, pred=lambda t: True):
        """Names of the program's tensors (not list items) that pass pred."""
        return [n for n, v in self.ns.items() if re.fullmatch(r'[xcvw]\d+', n)
                and n not in self.stale and isinstance(v, torch.Tensor) and pred(v)]

    # -- literals
    def number(self, dtype, special=True):
        rng = self.rng
        if dtype == 'bool':
            return rng.random() < 0.5
        if dtype in INTS:
            r = rng.random()
            if dtype == 'int32' and r < 0.15:  # int32 wraps around as in C
                return rng.choice((2**20, -2**20, 2**31 - 1, 100000))
            return rng.randint(-4, 4) if r < 0.95 else 1000
        r = rng.random()
        if r < 0.06 and special:
            return rng.choice((math.nan, math.inf, -math.inf, -0.0, 1e-310, 3e38, 1e39))
        if r < 0.4:
            return float(rng.randint(-3, 3))
        if r < 0.55:
            return rng.randint(-12, 12) / 4
        return round(rng.uniform(-3, 3), rng.choice((1, 3, 17)))

    def literal(self, shape, dtype, special=True):
        if not shape:
            return self.number(dtype, special)
        return [self.literal(shape[1:], dtype, special) for _ in range(shape[0])]

    def mixed(self, shape, special):
        """A literal whose elements are ints, floats and bools."""
        if not shape:
            return self.number(self.rng.choice(('int64', 'float64', 'bool')), special)
        return [self.mixed(shape[1:], special) for _ in range(shape[0])]

    def lit_text(self, v):
        if isinstance(v, list):
            return '[' + ', '.join(self.lit_text(x) for x in v) + ']'
        if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
            return 'nan' if math.isnan(v) else ('inf' if v > 0 else '-inf')
        return repr(v)

    def shape(self):
        return self.rng.choice(SHAPES)

    # -- expressions: (text, tags)
    def creation(self):
        rng, shape = self.rng, self.shape()
        dt = rng.choice(DTYPES)
        kw = f', dtype=torch.{dt}' if rng.random() < 0.5 else ''
        r = rng.random()
        if r < 0.1 and shape:  # [True, 2] is int64, [1, 2.5] float64
            lit = self.mixed(shape, dt not in INTS or not kw)
            return f'torch.tensor({self.lit_text(lit)}{kw})', ['torch.tensor(mixed literal)'] + \
                (['dtype='] if kw else [])
        if r < 0.5:
            lit_dt = dt if not kw or rng.random() < 0.7 else rng.choice(DTYPES)
            lit = self.literal(shape, lit_dt, dt not in INTS or not kw)
            tag = 'torch.tensor(ints)' if lit_dt in INTS else f'torch.tensor({lit_dt} literal)'
            return f'torch.tensor({self.lit_text(lit)}{kw})', [tag] + (['dtype='] if kw else [])
        dims = repr(shape) if shape else '()'
        if r < 0.65:
            f = rng.choice(('zeros', 'ones'))
            return f'torch.{f}({dims}{kw})', [f'torch.{f}'] + (['dtype='] if kw else [])
        if r < 0.8:
            v = self.lit_text(self.number(rng.choice(DTYPES), dt not in INTS or not kw))
            return f'torch.full({dims}, {v}{kw})', ['torch.full'] + (['dtype='] if kw else [])
        if r < 0.9:
            n = rng.randint(1, 4)
            a = rng.choice((f'{n}', f'{float(n)}', f'0, {n}'))
            return f'torch.arange({a}{kw})', ['torch.arange'] + (['dtype='] if kw else [])
        src = self.tensors()
        if not src:
            raise Retry('no tensor')
        f = rng.choice(('zeros_like', 'ones_like'))
        return f'torch.{f}({rng.choice(src)}{kw})', [f'torch.{f}'] + (['dtype='] if kw else [])

    def operand(self, depth):
        rng = self.rng
        names = self.tensors()
        r = rng.random()
        if names and r < 0.55:
            return rng.choice(names), []
        if r < 0.7 or depth >= 2:
            return self.creation()
        return self.expr(depth + 1)

    def scalar(self):
        dt = self.rng.choice(('int64', 'int64', 'float64', 'float64', 'bool'))
        return self.lit_text(self.number(dt, special=False)), [f'{dt} scalar']

    def wrap(self, t):
        return t if re.fullmatch(r'[\w.]+(\(.*\))?', t) and not t.startswith('-') else f'({t})'

    def expr(self, depth=0):
        rng = self.rng
        a, ta = self.operand(depth)
        A = self.wrap(a)
        r = rng.random()
        if r < 0.2:
            dt = rng.choice(DTYPES)
            c = rng.choice(CASTS[dt])
            return A + c, ta + [c.split('(')[0] + '()' if c.startswith('.to') or c.startswith('.type')
                                else c]
        if r < 0.5:
            op = rng.choice(('+', '-', '*', '/', '//', '%', '**'))
            b, tb = self.scalar() if rng.random() < 0.35 else self.operand(depth)
            B = self.wrap(b)
            return f'{A} {op} {B}', ta + tb + [f'{op}']
        if r < 0.62:
            op = rng.choice(('<', '<=', '>', '>=', '==', '!='))
            b, tb = self.scalar() if rng.random() < 0.4 else self.operand(depth)
            return f'{A} {op} {self.wrap(b)}', ta + tb + ['compare']
        if r < 0.72:
            op = rng.choice(('&', '|', '^'))
            b, tb = self.operand(depth)
            return f'{A} {op} {self.wrap(b)}', ta + tb + [op]
        if r < 0.77:
            return f'~{A}', ta + ['~']
        if r < 0.8:
            return f'-{A}', ta + ['neg']
        if r < 0.92:
            f = rng.choice(('sum', 'sum', 'argmax', 'max', 'min', 'mean', 'abs', 'exp', 'sqrt',
                            'sum_dim', 'argmax_dim'))
            if f.endswith('_dim'):
                d = rng.choice((0, -1))
                if rng.random() < 0.5:
                    return f'torch.{f[:-4]}({a}, {d})', ta + [f]
                return f'{A}.{f[:-4]}({d})', ta + [f]
            if rng.random() < 0.5:
                return f'torch.{f}({a})', ta + [f]
            return f'{A}.{f}()', ta + [f]
        if r < 0.96:
            c, tc = self.operand(depth)
            op = rng.choice(('<', '>', '=='))
            b, tb = self.scalar() if rng.random() < 0.3 else self.operand(depth)
            return f'torch.where({self.wrap(c)} {op} 0, {a}, {b})', ta + tb + tc + ['where']
        if r < 0.98:
            lo, hi = sorted((rng.randint(-2, 1), rng.randint(0, 3)))
            lo, hi = (lo, float(hi) + 0.5) if rng.random() < 0.3 else (lo, hi)
            return f'{A}.clamp({lo}, {hi})', ta + ['clamp']
        return self.pair(a, A, ta, depth)

    def pair(self, a, A, ta, depth):
        """Ops of two tensors of any dtypes: cat, stack, maximum, minimum,
        x.to(y), dot; and max/min along a dim, values or indices."""
        rng = self.rng
        b, tb = self.operand(depth)
        f = rng.choice(('cat', 'stack', 'maximum', 'minimum', 'to', 'dot', 'max_dim', 'min_dim'))
        if f in ('cat', 'stack'):
            return f'torch.{f}([{a}, {b}])', ta + tb + [f]
        if f in ('maximum', 'minimum', 'dot'):
            return f'torch.{f}({a}, {b})', ta + tb + [f]
        if f == 'to':
            return f'{A}.to({self.wrap(b)})', ta + tb + ['x.to(y)']
        part = rng.choice(('values', 'indices'))
        return f'{A}.{f[:3]}({rng.choice((0, -1))}).{part}', ta + [f'{f[:3]}(dim).{part}']

    # -- checks on PyTorch's value
    def fine(self, v):
        """Whether a value avoids the documented departures: small, no int64
        beyond 2**53, not complex (ag has no complex numbers: a negative
        Python float to a fractional power is an error there)."""
        if not isinstance(v, torch.Tensor) or v.numel() > 12 or v.dim() > 3:
            return False
        if v.is_complex():
            return False
        if v.dtype == torch.int64 and v.numel() and int(v.abs().max()) > 2**53:
            return False
        return True

    # -- statements
    def try_stmt(self, st, errors_ok):
        """Runs st in PyTorch: True if kept. A statement PyTorch refuses is
        kept (last) when errors_ok, else thrown away."""
        if self.bad_cast(st.text) or self.floor_grad(st.text):
            return False
        try:
            exec(st.text, self.ns)
        except Exception as e:
            if errors_ok and not isinstance(e, (NameError, SyntaxError)):
                st.tags.append('error')
                self.prog.stmts.append(st)
                return 'error'
            self.reset_ns()
            return False
        for r in st.reports:
            try:
                v = eval(r, self.ns)
            except Exception:
                self.reset_ns()
                return False
            if v is not None and not self.fine(v):
                self.reset_ns()
                return False
        self.prog.stmts.append(st)
        return True

    def floor_grad(self, text):
        """Whether text has // and a name that requires grad: ag's // records
        nothing (its result is a constant), PyTorch's requires grad and
        cannot go back (docs/language.md)."""
        if '//' not in text:
            return False
        for n in re.findall(r'\b[xcvw]\d+\b', text):
            v = self.ns.get(n)
            if isinstance(v, torch.Tensor) and v.requires_grad:
                return True
        return False

    def bad_cast(self, text):
        """Whether a cast to an integer in text is given a float it cannot
        hold (nan, inf, beyond int32's range): C leaves it undefined, and
        PyTorch's result depends on the vector width."""
        for m in re.finditer(r'\.(long|int|to\(torch\.int(64|32)|type\(torch\.long|to\(dtype=torch\.int)', text):
            head = text[:m.start()]
            # the operand: the longest suffix of head that evaluates
            for k in range(len(head)):
                try:
                    v = eval(head[k:], self.ns)
                except Exception:
                    continue
                if isinstance(v, torch.Tensor) and v.is_floating_point():
                    if v.numel() and not bool((v.abs() < 2**31).all()):
                        return True
                break
        m = re.fullmatch(r'(\S+)\[.*\] = (.*)', text) or re.fullmatch(r'(\S+)\.copy_\((.*)\)', text)
        if m:  # a float written into an integer tensor is cast too
            try:
                t, v = eval(m.group(1), self.ns), eval(m.group(2), self.ns)
            except Exception:
                return False
            if isinstance(v, torch.Tensor) and v.is_floating_point() and not t.is_floating_point() \
                    and v.numel() and not bool((v.abs() < 2**31).all()):
                return True
        return False

    def views_of(self, name):
        """Other names and list items sharing name's storage without being
        the same object (views: a departure ag documents)."""
        t = self.ns[name]
        out = []
        for n in self.tensors() + self.list_items():
            u = eval(n, self.ns)
            if u is not t and u.numel() and t.numel() and \
                    u.storage().data_ptr() == t.storage().data_ptr():
                out.append(n)
        return out

    def list_items(self):
        return [f'{L}[{i}]' for L, n in self.lists.items() for i in range(n)]

    def aliases(self, t):
        return [n for n in self.tensors() + self.list_items() if eval(n, self.ns) is t]

    def assign(self, errors_ok):
        e, tags = self.expr()
        name = self.name('v')
        return self.try_stmt(Stmt(f'{name} = {e}', [name], tags), errors_ok)

    def const(self, errors_ok):
        e, tags = self.creation()
        name = self.name('c')
        return self.try_stmt(Stmt(f'{name} = {e}', [name], tags), errors_ok)

    def leaf(self):
        rng = self.rng
        dt = 'float32' if rng.random() < 0.3 else 'float64'
        name = self.name('x')
        lit = self.lit_text(self.literal(self.shape(), 'float64'))
        kw = ', dtype=torch.float32' if dt == 'float32' else ''
        return self.try_stmt(Stmt(f'{name} = torch.tensor({lit}{kw}, requires_grad=True)',
                                  [name], [f'leaf {dt}']), False)

    def alias(self):
        names = self.tensors(lambda t: not t.requires_grad or t.is_leaf)
        if not names:
            return False
        if self.rng.random() < 0.5:
            name = self.name('v')
            st = Stmt(f'{name} = {self.rng.choice(names)}', [name], ['alias: second name'])
        else:
            items = [self.rng.choice(names) for _ in range(self.rng.randint(1, 2))]
            name = self.name('L')
            self.lists[name] = len(items)
            st = Stmt(f"{name} = [{', '.join(items)}]", [f'{name}[{i}]' for i in range(len(items))],
                      ['alias: list'])
        ok = self.try_stmt(st, False)
        if not ok and name in self.lists:
            del self.lists[name]
        return ok

    def target(self, grad, recorded=False):
        """A name or list item to change in place: not a view (nor viewed),
        requiring grad or not as asked; recorded: a floating intermediate,
        or a floating constant (the op's operand may require grad)."""
        def fits(t):
            if recorded:
                return t.is_floating_point() and (not t.requires_grad or not t.is_leaf)
            return t.requires_grad == grad and (not grad or t.is_leaf)
        cands = [n for n in self.tensors() + self.list_items() if fits(eval(n, self.ns))]
        cands = [n for n in cands if '[' in n or not self.views_of(n)]
        cands = [n for n in cands if not any(self.views_of(a) for a in self.aliases(eval(n, self.ns))
                                              if '[' not in a)]
        if not cands:
            raise Retry('no target')
        return self.rng.choice(cands)

    def inplace(self, errors_ok):
        rng = self.rng
        grad = errors_ok and rng.random() < 0.1  # PyTorch's refusal of a leaf that requires grad
        if not grad and rng.random() < 0.4:
            return self.inplace_recorded(errors_ok)
        t = self.target(grad)
        r = rng.random()
        if r < 0.35:
            op = rng.choice(('+=', '-=', '*=', '/=', '&=', '|='))
            b, tb = self.scalar() if rng.random() < 0.4 else self.operand(1)
            self.no_grad_operand(b)
            text, tags = f'{t} {op} {b}', tb + [op]
        elif r < 0.55:
            v = self.ns_eval(t)
            if v.dim() == 0:  # x[...] and x[mask] of a 0-d x: ag refuses both (README)
                raise Retry('0-d index')
            idx = rng.choice((str(rng.randrange(v.shape[0])), f'{t} > 0', '-1', ':'))
            b, tb = self.scalar() if rng.random() < 0.6 else self.operand(1)
            self.no_grad_operand(b)
            op = rng.choice(('+=', '-=', '*=')) if rng.random() < 0.3 else '='
            text = f'{t}[{idx}] {op} {b}'
            tags = tb + [f"x[{'mask' if '>' in idx else 'i'}] {op} v"]
        else:
            f = rng.choice(('add_', 'sub_', 'mul_', 'zero_', 'clamp_', 'fill_', 'div_', 'neg_',
                            'abs_', 'pow_', 'exp_', 'copy_'))
            if f in ('zero_', 'neg_', 'abs_', 'exp_'):
                args, tb = '', []
            elif f == 'clamp_':
                lo, hi = sorted((rng.randint(-2, 1), rng.randint(0, 3)))
                args, tb = (f'{lo}, {hi}' if rng.random() < 0.7 else f'min={lo}'), []
            elif f == 'fill_':
                args, tb = self.scalar()
            else:
                args, tb = self.scalar() if rng.random() < 0.4 else self.operand(1)
                self.no_grad_operand(args)
            text, tags = f'{t}.{f}({args})', tb + [f]
        obj = self.ns_eval(t)
        reports = self.aliases(obj)
        return self.try_stmt(Stmt(text, reports, tags + (['alias'] if len(reports) > 1 else [])),
                             errors_ok)

    def inplace_recorded(self, errors_ok):
        """An in-place op PyTorch records: on a floating intermediate, or on
        a floating constant with an operand that may require grad (it then
        becomes an intermediate): x op= v, x[i] = v, x[i] op= v, add_ sub_
        mul_ div_, and unary methods."""
        rng = self.rng
        t = self.target(False, recorded=True)
        r = rng.random()
        b, tb = self.scalar() if rng.random() < 0.3 else self.operand(1)
        if r < 0.35:
            op = rng.choice(('+=', '-=', '*=', '/='))
            text, tags = f'{t} {op} {b}', tb + [f'recorded {op}']
        elif r < 0.7:
            v = self.ns_eval(t)
            if v.dim() == 0:
                raise Retry('0-d index')
            idx = rng.choice((str(rng.randrange(v.shape[0])), f'{t} > 0', '-1', '1:', ':'))
            op = rng.choice(('+=', '-=', '*=')) if rng.random() < 0.3 else '='
            text = f'{t}[{idx}] {op} {b}'
            tags = tb + [f"recorded x[{'mask' if '>' in idx else 'i'}] {op} v"]
        else:
            f = rng.choice(('add_', 'sub_', 'mul_', 'div_', 'neg_', 'abs_', 'exp_', 'sin_',
                            'tanh_', 'sigmoid_', 'relu_'))
            args, tb = ('', []) if f not in ('add_', 'sub_', 'mul_', 'div_') else (b, tb)
            text, tags = f'{t}.{f}({args})', tb + [f'recorded {f}']
        reports = self.aliases(self.ns_eval(t))
        return self.try_stmt(Stmt(text, reports, tags + (['alias'] if len(reports) > 1 else [])),
                             errors_ok)

    def no_grad_operand(self, b):
        """Refuses an operand that requires grad for an in-place op outside
        no_grad: PyTorch records the op, ag records no in-place op
        (docs/language.md)."""
        try:
            v = eval(b, self.ns)
        except Exception:
            return
        if isinstance(v, torch.Tensor) and v.requires_grad:
            raise Retry('recorded in-place op')

    def ns_eval(self, t):
        return eval(t, self.ns)

    def backward(self, errors_ok):
        """(v * W).sum().backward() or v.sum().backward() on a float value
        that requires grad; every leaf's gradient reported."""
        cands = self.tensors(lambda t: t.requires_grad and t.is_floating_point())
        if not cands:
            return False
        n = self.rng.choice(cands)
        v = self.ns[n]
        if self.rng.random() < 0.5:
            w = self.lit_text(self.literal(tuple(v.shape), self.rng.choice(('int64', 'float64'))))
            loss = f'({n} * torch.tensor({w})).sum()'
        else:
            loss = f'{n}.sum()'
        leaves = self.tensors(lambda t: t.requires_grad and t.is_leaf)
        done = self.try_stmt(Stmt(f'{loss}.backward()', [f'{x}.grad' for x in leaves],
                                  ['backward']), errors_ok)
        if done:
            self.stale |= set(self.tensors(lambda t: t.requires_grad and not t.is_leaf))
        return done

    def update(self):
        """with torch.no_grad(): w -= lr * w.grad (or add_, or through an
        alias), then sometimes w.grad.zero_() or w.grad = None."""
        rng = self.rng
        leaves = [n for n in self.tensors(lambda t: t.requires_grad and t.is_leaf and t.grad is not None)]
        if not leaves:
            return False
        x = rng.choice(leaves)
        names = self.aliases(self.ns[x])
        w = rng.choice(names)
        lr = rng.choice(('0.1', '0.5', '1', '2'))
        r = rng.random()
        if r < 0.6:
            body, tag = f'{w} -= {lr} * {x}.grad', 'no_grad: w -= lr * w.grad'
        elif r < 0.8:
            body, tag = f'{w}.sub_({lr} * {w}.grad)', 'no_grad: w.sub_'
        else:
            body, tag = f'{w}[0] = {lr}' if self.ns[x].dim() else f'{w}.mul_({lr})', 'no_grad: w[0] = v'
        ok = self.try_stmt(Stmt(f'with torch.no_grad(): {body}', names + [f'{x}.grad'], [tag]), False)
        if ok and rng.random() < 0.4:
            zero = rng.choice((f'{x}.grad.zero_()', f'{x}.grad = None'))
            self.try_stmt(Stmt(zero, [f'{x}.grad'], [zero.split('.', 1)[1]]), False)
        return ok


def generate(seed):
    rng = random.Random(seed)
    g = DGen(rng)
    errors_ok = rng.random() < 0.15
    for _ in range(rng.randint(1, 2)):
        g.leaf()
    for _ in range(rng.randint(0, 2)):
        g.const(False)
    for _ in range(rng.randint(3, 10)):
        r = rng.random()
        try:
            if r < 0.4:
                done = g.assign(False)
            elif r < 0.5:
                done = g.const(False)
            elif r < 0.6:
                done = g.alias()
            elif r < 0.85:
                done = g.inplace(False)
            elif r < 0.93:
                done = g.backward(False)
            else:
                done = g.update()
        except Retry:
            continue
    if errors_ok:  # one statement PyTorch may refuse, last
        for _ in range(20):
            r = rng.random()
            try:
                kind = (g.assign if r < 0.4 else g.inplace if r < 0.85 else g.backward)
                if kind(True) == 'error':
                    break
            except Retry:
                continue
    return g.prog


# ---- shrinking -----------------------------------------------------------------

def shrink(prog, still, budget=400):
    """ddmin over statements, then over each statement's reports, keeping
    still(candidate) true."""
    stmts = list(prog.stmts)
    n, spent = 2, 0
    while len(stmts) >= 2 and spent < budget:
        chunk = max(1, len(stmts) // n)
        cands = [stmts[:k] + stmts[k + chunk:] for k in range(0, len(stmts), chunk)]
        spent += len(cands)
        oks = still([DProgram(c) for c in cands])
        good = [c for c, ok in zip(cands, oks) if ok]
        if good:
            stmts = good[0]
            n = max(n - 1, 2)
        elif chunk == 1:
            break
        else:
            n = min(len(stmts), n * 2)
    return type(prog)(stmts)
