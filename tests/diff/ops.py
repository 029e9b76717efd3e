"""ops.py -- the one table of everything the differential test can emit.

Each row of OPS is one op: its name in ag, how PyTorch spells it, the kinds
of its arguments (tensors with a shape rule and a value domain, axes,
numbers, keywords) and the syntax it needs. The generator (program.py) only
reads this table; the runner probes ./ag and keeps the rows it accepts, so a
row for an op ag does not have yet costs nothing until it lands.

Adding an op is adding a row. A row for `y = foo(x, dim, alpha=...)`:

    Op('foo', [X(), Axis(), Num('any', kw='alpha', optional=True)],
       lambda x, d, a: f"torch.foo({x}{kw('dim', d)}{kw('alpha', a)})")

The lambda receives the PyTorch text of each argument in row order (None
for an omitted optional one) and returns PyTorch's spelling. Rows with
operator syntax (form='binary'/'prefix') need no lambda: Python and ag
spell + - * / ** @ // % == < ... alike.
"""
import math

import torch

# Precedence, shared by ag and Python (ag follows Python's table).
COMPARE, ADD, MUL, UNARY, POW, POSTFIX, ATOM = range(1, 8)


def kw(name, text):
    """', name=text' for a present keyword argument, '' for an omitted one."""
    return '' if text is None else f', {name}={text}'


def pos(text):
    """', text' for a present positional argument, '' for an omitted one."""
    return '' if text is None else f', {text}'


# ---- shapes -----------------------------------------------------------------

def broadcastable(a, b):
    return all(x == y or x == 1 or y == 1 for x, y in zip(reversed(a), reversed(b)))


def matmul_ok(a, b):
    if not a or not b:
        return False
    k = b[0] if len(b) == 1 else b[-2]
    return a[-1] == k and broadcastable(a[:-2], b[:-2])


def random_shape(rng, ndim=None, lo=0, hi=3):
    """Dimensions of 1 to 4, and now and then 0 (an empty tensor)."""
    n = rng.randint(lo, hi) if ndim is None else ndim
    return tuple(0 if rng.random() < 0.02 else rng.choice((1, 2, 2, 3, 3, 4)) for _ in range(n))


def bcast_variant(rng, s):
    """A shape that broadcasts with s: s itself, s with dimensions set to 1 or
    dropped from the front, one more dimension in front, or ()."""
    r = rng.random()
    if r < 0.3 or not s:
        return s if rng.random() < 0.7 or len(s) >= 3 else (rng.choice((1, 2)),) + s
    if r < 0.55:
        return tuple(1 if rng.random() < 0.5 else d for d in s)
    if r < 0.8:
        return s[rng.randint(1, len(s)):]
    if r < 0.9 and len(s) < 3:
        return (rng.choice((1, 2, 3)),) + s
    return ()


# ---- argument kinds ----------------------------------------------------------
# A tensor kind asks the generator for an expression (g.tensor); a parameter
# kind returns a Param (its ag text, its PyTorch text, a keyword name when it
# is given as a keyword) or None when an optional one is left out. `args` is
# the list of arguments generated so far for this call; `g.shape(e)` is the
# shape PyTorch computes for one of them.

class Param:
    def __init__(self, ag, torch=None, kwname=None, keyword=False, value=None):
        self.ag, self.torch = ag, ag if torch is None else torch
        self.kwname, self.keyword, self.value = kwname, keyword, value


class Kind:
    tensor = False
    kw = None          # keyword name (ag and PyTorch)
    optional = False
    kwonly = False     # only ever given as a keyword (needs the 'kwargs' feature)

    def param(self, g, ag, torch=None, value=None):
        return Param(ag, torch, self.kw, self.kwonly, value)


class X(Kind):
    """A tensor of any shape with ndim in [lo, hi]."""
    tensor = True

    def __init__(self, lo=0, hi=3, domain='any'):
        self.lo, self.hi, self.domain = lo, hi, domain

    def gen(self, g, args):
        lo, hi = self.lo, self.hi
        return g.tensor(lambda s: lo <= len(s) <= hi,
                        lambda: random_shape(g.rng, lo=lo, hi=hi), self.domain)


class Like(X):
    """A tensor whose shape follows argument `of`: 'bcast' (broadcasts with it,
    or equal when the program does not broadcast), 'same', 'matmul' (a valid
    right operand of matmul), 'rows' (shape (N,) for an (N, ...) argument),
    'vec' (shape (K,) for an (..., K) argument: mv), 'mm' ((K, M) for an
    (N, K) one)."""

    def __init__(self, mode, of=0, domain='any'):
        self.mode, self.of, self.domain = mode, of, domain

    def gen(self, g, args):
        s, rng = g.shape(args[self.of]), g.rng
        if self.mode == 'bcast' and g.broadcast:
            return g.tensor(lambda b: broadcastable(s, b), lambda: bcast_variant(rng, s), self.domain)
        if self.mode in ('bcast', 'same'):
            return g.tensor(lambda b: b == s, lambda: s, self.domain)
        if self.mode == 'rows':
            return g.tensor(lambda b: b == s[:1], lambda: s[:1], self.domain)
        if self.mode == 'vec':
            return g.tensor(lambda b: b == s[-1:], lambda: s[-1:], self.domain)
        if self.mode == 'mm':
            return g.tensor(lambda b: len(b) == 2 and b[0] == s[-1],
                            lambda: (s[-1], rng.choice((1, 2, 3))), self.domain)
        def make():  # matmul
            k, m = s[-1], rng.choice((1, 2, 3))
            r = rng.random()
            if r < 0.3:
                return (k,)
            if r < 0.8 or len(s) < 3:
                return (k, m)
            return s[:-2] + (k, m)
        return g.tensor(lambda b: matmul_ok(s, b), make, self.domain)


class One(X):
    """A tensor of one element (0-d, (1,) or (1, 1)): item, round."""

    def __init__(self, domain='any'):
        self.domain = domain

    def gen(self, g, args):
        return g.tensor(lambda s: math.prod(s) == 1 and len(s) <= 2,
                        lambda: g.rng.choice(((), (1,), (1, 1))), self.domain)


class Cond(Kind):
    """A comparison `a OP b` (a constant boolean tensor), for where."""
    tensor = True

    def gen(self, g, args):
        return g.comparison()


class Tensors(Kind):
    """Two or three tensors for cat (equal but along one axis) or stack
    (equal shapes); chooses the axis, which the Axis that follows reads."""
    tensor = True

    def __init__(self, mode):
        self.mode = mode

    def gen(self, g, args):
        first = g.tensor(lambda s: len(s) >= 1, lambda: random_shape(g.rng, lo=1), 'any')
        s = g.shape(first)
        n = len(s) + (self.mode == 'stack')
        d = g.rng.randrange(n)
        g.extra.update(dim=d, ndim=n)
        items = [first]
        for _ in range(g.rng.randint(1, 2)):
            if self.mode == 'cat':
                t = s[:d] + (g.rng.choice((1, 2)),) + s[d + 1:]
                items.append(g.tensor(lambda b, t=t: len(b) == len(t) and all(
                    x == y or i == d for i, (x, y) in enumerate(zip(b, t))), lambda t=t: t, 'any'))
            else:
                items.append(g.tensor(lambda b: b == s, lambda: s, 'any'))
        return g.tensor_list(items)


class Axis(Kind):
    """An axis of argument `of` (negative counts from the end); `extra`=1
    allows one past the end (unsqueeze). Optional: left out at random."""

    def __init__(self, kw='dim', optional=True, of=0, extra=0, kwonly=False):
        self.kw, self.optional, self.of, self.extra, self.kwonly = kw, optional, of, extra, kwonly

    def gen(self, g, args):
        if 'dim' in g.extra:  # cat, stack: the axis Tensors chose
            d = g.extra['dim'] - g.extra['ndim'] * (g.rng.random() < 0.3)
            return self.param(g, str(d), value=d)
        if self.optional and g.rng.random() < 0.4:
            return None
        n = len(g.shape(args[self.of])) + self.extra
        d = g.rng.randrange(-max(n, 1), max(n, 1))
        return self.param(g, str(d), value=d)


class Axes2(Kind):
    """transpose's two axes (both given, or both left out)."""

    def gen(self, g, args):
        n = len(g.shape(args[0]))
        if (n >= 2 and g.rng.random() < 0.4) or n == 0:
            return None
        a, b = (g.rng.randrange(-n, n) for _ in range(2))
        return self.param(g, f'{a}, {b}')


class At(Kind):
    """An index along the axis that argument `axis` chose (select); negative
    counts from the end."""

    def __init__(self, of=0, axis=1):
        self.of, self.axis = of, axis

    def gen(self, g, args):
        n = g.shape(args[self.of])[args[self.axis].value]
        i = g.rng.randrange(-n, n)  # ValueError for a size of 0: the call is retried
        return self.param(g, str(i), value=i)


class Perm(Kind):
    def gen(self, g, args):
        p = list(range(len(g.shape(args[0]))))
        g.rng.shuffle(p)
        return self.param(g, ', '.join(map(str, p)), repr(tuple(p)))  # PyTorch: permute(()) for 0-d


class Dims(Kind):
    """Dimensions: of a new tensor ('new'), or for reshaping argument 0 (its
    element count, with one -1 sometimes)."""

    def __init__(self, mode='new'):
        self.mode = mode

    def gen(self, g, args):
        rng = g.rng
        if self.mode == 'new':
            s = g.want if g.want is not None else random_shape(rng, lo=1)
            same = [p.name for p in g.pool if p.shape == s and not g.in_body and not p.number]
            if same and 'shape_attr' in g.caps and rng.random() < 0.3:
                name = rng.choice(same)  # zeros(x.shape)
                return self.param(g, f'{name}.shape', f'{name}.shape', s)
            return self.param(g, ', '.join(map(str, s)), repr(tuple(s)), s)
        n = math.prod(g.shape(args[0]))
        dims = []
        while n > 1 and len(dims) < 3:
            f = rng.choice([d for d in range(1, n + 1) if n % d == 0])
            dims.append(f)
            n //= f
        dims.append(n)
        rng.shuffle(dims)
        if rng.random() < 0.3:
            dims[rng.randrange(len(dims))] = -1
        return self.param(g, ', '.join(map(str, dims)))


class Num(Kind):
    """A number literal from a domain (Gen.number); 'count' is an integer (the
    length of a wanted shape when there is one)."""

    def __init__(self, domain='any', kw=None, optional=False, kwonly=False):
        self.domain, self.kw, self.optional, self.kwonly = domain, kw, optional, kwonly

    def gen(self, g, args):
        if self.optional and g.rng.random() < 0.5:
            return None
        if self.domain == 'count':
            n = g.want[0] if g.want else g.rng.randint(1, 6)
            return self.param(g, str(n), str(n), n)
        if self.domain == 'digits':  # round's ndigits: an integer
            n = g.rng.choice((0, 1, 2, 3, 4, -1, -2, 8, 15, 17))
            return self.param(g, str(n), str(n), n)
        v = g.number(self.domain)
        return self.param(g, g.ag_number(v), g.py_number(v), v)


class Range(Kind):
    """arange's `start, stop, step` or linspace's `start, stop, n`, making
    the wanted length when there is one."""

    def __init__(self, mode):
        self.mode = mode

    def gen(self, g, args):
        rng = g.rng
        n = g.want[0] if g.want else rng.randint(1, 6)
        a = rng.choice((0.0, 1.0, -2.0, 0.5, round(rng.uniform(-3, 3), rng.randint(0, 3))))
        if self.mode == 'linspace':
            b = rng.choice((1.0, 3.0, a + 1.0, -1.0, round(rng.uniform(-3, 3), rng.randint(0, 3))))
            vals = (a, b, n)
        else:
            s = rng.choice((1.0, 0.5, -0.5, 0.1, 0.3, -1.5, round(rng.uniform(0.1, 2), rng.randint(1, 3))))
            b = a + s * (n - 0.5)
            vals = (a, b, s)
        ag = ', '.join(g.ag_number(v) if isinstance(v, float) else str(v) for v in vals)
        py = ', '.join(g.py_number(v) if isinstance(v, float) else str(v) for v in vals)
        return self.param(g, ag, py, vals)


class Flag(Kind):
    """A keyword-only boolean (keepdim=True)."""
    optional = kwonly = True

    def __init__(self, kw, after=None):
        self.kw, self.after = kw, after  # only given when argument #after is

    def gen(self, g, args):
        if (self.after is not None and args[self.after] is None) or g.rng.random() < 0.5:
            return None
        return self.param(g, g.rng.choice(('True', 'False')))


class Choice(Kind):
    """A keyword-only string from a list (reduction='sum')."""
    optional = kwonly = True

    def __init__(self, kw, options):
        self.kw, self.options = kw, options

    def gen(self, g, args):
        if g.rng.random() < 0.4:
            return None
        return self.param(g, repr(g.rng.choice(self.options)))


class Classes(Kind):
    """Class indices for (N, C) logits: an integer list of length N."""

    def gen(self, g, args):
        s = g.shape(args[0])
        n, c = (s[0], s[1]) if len(s) == 2 else (1, s[0]) if s else (1, 1)
        v = [g.rng.randrange(c) for _ in range(n)] if len(s) == 2 else g.rng.randrange(c)
        return self.param(g, str(v), f'C({v})', v)


class Index(Kind):
    """A subscript: integers, slices with positive steps, an integer list."""

    def gen(self, g, args):
        s, rng = g.shape(args[0]), g.rng
        if not s:  # a 0-d operand (the relaxed statement): both should refuse it
            return self.param(g, '0')
        if rng.random() < 0.2:
            n = s[0]
            idx = [rng.randrange(-n, n) for _ in range(rng.randint(1, 3))]
            return self.param(g, str(idx))
        parts = []
        for n in s[:rng.randint(1, len(s))]:
            r = rng.random()
            if r < 0.3:
                parts.append(str(rng.randrange(-n, n)))
            else:
                a = '' if rng.random() < 0.5 else str(rng.randrange(-n, n))
                b = '' if rng.random() < 0.5 else str(rng.randrange(-n, n + 1))
                c = '' if rng.random() < 0.6 else ':' + str(rng.randint(1, 2))
                parts.append(f'{a}:{b}{c}')
        return self.param(g, ', '.join(parts))


class Params(Kind):
    """An optimizer's parameters: the list of variables Gen.optimize chose."""

    def gen(self, g, args):
        return g.tensor_list([g.ref(n) for n in g.opt_params])


class Hyper(Kind):
    """An optimizer's option: one of `options` (numbers, booleans, a pair of
    numbers for betas), left out at random unless required."""

    def __init__(self, kw, options, optional=True, kwonly=False):
        self.kw, self.options, self.optional, self.kwonly = kw, options, optional, kwonly

    def gen(self, g, args):
        if self.optional and g.rng.random() < 0.5:
            return None
        v = g.rng.choice(self.options)
        return self.param(g, repr(v), value=v)


# ---- the table ---------------------------------------------------------------

class Op:
    """One row. form: 'call' name(args), 'binary' a SYM b, 'prefix' SYM a,
    'attr' a.NAME, 'index' a[...], 'list' [a, b] (stack), 'source' (a call
    that makes a new constant tensor of a wanted shape). grad=False: the
    result is a constant. needs: syntax features beyond the form's own."""

    def __init__(self, name, args, torch=None, form='call', sym=None, prec=None, grad=True,
                 needs=(), weight=1.0, ag=None, unary=False, fits=None, number=False,
                 numbers=True, avoid=None, valid=None):
        self.name, self.args, self.torch, self.form = name, args, torch, form
        self.fits = fits              # source: the shapes it can make
        self.sym, self.prec, self.grad, self.weight = sym, prec, grad, weight
        self.ag = ag or name          # the builtin's name in ag
        self.unary = unary            # element-wise on one tensor: shape kept
        self.number = number          # gives a number in ag (item, len), a 0-d tensor in PyTorch
        self.numbers = numbers        # takes numbers as operands (False: ag's number
        #                               arithmetic is Python's, not PyTorch's tensor op)
        self.avoid = avoid            # avoid([operand values]): PyTorch tensors it is not given
        self.valid = valid            # valid([arguments]): the arguments it is given
        self.needs = set(needs) | {
            'call': {'calls'}, 'source': {'calls'}, 'attr': {'attr_T'}, 'index': {'index'},
            'list': {'list_stack'}, 'prefix': {'operators'}, 'user': {'functions'},
            'optim': {'calls', 'blocks', 'method', 'kwargs'},
            'optim': {'calls', 'blocks', 'method', 'kwargs'},
            'binary': {'compare'} if prec == COMPARE else
                      {'floordiv'} if sym in ('//', '%') else {'operators'}}[form]
        self.needs |= {'kwargs' for a in args if a.kwonly and not a.optional}

    def __deepcopy__(self, memo):  # rows are shared, never copied
        return self


# Documented departures, given only in the forms where ag and PyTorch agree.

def nan_inside(values):
    """Where PyTorch's vectorised kernel and its scalar one disagree (the
    gradient of elu and relu6 at nan), ag follows the scalar one, which a
    one-element tensor gets (docs/language.md, Activations). So these ops
    get nan only in one-element tensors."""
    t, = values
    return t.numel() > 1 and bool(t.isnan().any())


def nan_or_3_inside(values):
    """hardswish's gradient departs at nan and at +-3 (as nan_inside)."""
    t, = values
    return t.numel() > 1 and bool((t.isnan() | (t.abs() == 3)).any())


def quotient_overflows(values):
    """a // b and a % b where a / b overflows (1e300 // 1e-300): PyTorch's
    vectorised kernel gives nan (SLEEF's fmod), its scalar one (a
    one-element tensor) and Python inf and a remainder; ag follows the
    scalar one. So these get such operands only as one element each."""
    a, b = values
    if a.dtype == torch.bool or b.dtype == torch.bool:
        return False
    q = a / b
    return q.numel() > 1 and bool((q.isinf() & a.isfinite() & (b != 0)).any())


def bounded(args):
    """clamp: one bound at least (ag refuses neither, as PyTorch 2 does),
    and no nan bound (ag's clamp(x, min=nan) is nan; PyTorch's number bound
    ignores it)."""
    bounds = [a for a in args[1:] if a is not None]
    return bounds and not any(a.value is not None and math.isnan(a.value) for a in bounds)


def norm_p_not_0(args):
    """norm with p=0: ag's gradient is 0 where PyTorch's is None."""
    return args[1] is None or args[1].value != 0


def unary(name, torch_fn, domain='any', **kw):
    return Op(name, [X(domain=domain)], lambda x: f'{torch_fn}({x})', unary=True, **kw)


def binary(name, sym, prec, domain='any', **kw):
    if sym in ('%', '//', '**'):
        kw.setdefault('numbers', False)
    if sym in ('%', '//'):
        kw.setdefault('avoid', quotient_overflows)
    return Op(name, [X(), Like('bcast', domain=domain)], form='binary', sym=sym, prec=prec, **kw)


def reduction(name, torch_fn, values=False, **kw):
    """sum(x[, dim][, keepdim=]) and friends; values: PyTorch returns
    (values, indices) when dim is given."""
    v = '.values' if values else ''
    return Op(name, [X(), Axis(), Flag('keepdim', after=1)],
              lambda x, d, k: f'{torch_fn}({x})' if d is None else
              f'{torch_fn}({x}, dim={d}{kw_("keepdim", k)}){v}', **kw)


kw_ = kw

LOSS = ('mean', 'sum', 'none')


def loss(name, torch_fn, domains=('any', 'any'), extra=(), ag=None, **kw):
    """A loss of two same-shape tensors with reduction= and extra keywords."""
    args = [X(domain=domains[0]), Like('same', domain=domains[1])] + list(extra) + \
           [Choice('reduction', LOSS)]
    names = [a.kw for a in extra] + ['reduction']
    return Op(name, args, lambda a, b, *rest: f'{torch_fn}({a}, {b}' + ''.join(
        kw_(n, t) for n, t in zip(names, rest)) + ')', ag=ag, **kw)


def optim(name, hypers, **kw):
    """An optimizer over a list of variables (form 'optim': Gen.optimize
    writes the loop that trains with it). PyTorch gets every option as a
    keyword; ag's positional order is PyTorch's."""
    names = [h.kw for h in hypers]
    return Op(name, [Params()] + hypers, lambda p, *rest: f'torch.optim.{name}({p}' + ''.join(
        kw_(n, t) for n, t in zip(names, rest)) + ')', form='optim', **kw)


def nesterov_ok(args):
    """SGD's nesterov needs momentum and no dampening: both refuse it
    otherwise (tried once; not worth generating)."""
    given = {a.kwname: a.value for a in args[1:] if a is not None}
    return not given.get('nesterov') or (given.get('momentum', 0) > 0 and given.get('dampening', 0) == 0)


LR = (0.1, 0.01, 0.5, 1.0, 0.001, 0.05)
DECAY = (0.0, 0.1, 0.01, 0.5)
BOOL = (True, False)
BETAS = ((0.9, 0.999), (0.8, 0.9), (0.5, 0.5), (0.0, 0.99), (0.9, 0.0))
MAXIMIZE = Hyper('maximize', BOOL, kwonly=True)
OPTIMS = [
    optim('SGD', [Hyper('lr', LR, optional=False), Hyper('momentum', (0.0, 0.9, 0.5, 0.99)),
                  Hyper('dampening', (0.0, 0.1, 0.5)), Hyper('weight_decay', DECAY),
                  Hyper('nesterov', BOOL), MAXIMIZE], valid=nesterov_ok),
    optim('Adam', [Hyper('lr', LR), Hyper('betas', BETAS), Hyper('eps', (1e-08, 1e-06, 0.001, 0.1)),
                   Hyper('weight_decay', DECAY), Hyper('amsgrad', BOOL), MAXIMIZE]),
    optim('AdamW', [Hyper('lr', LR), Hyper('betas', BETAS), Hyper('eps', (1e-08, 1e-06, 0.001, 0.1)),
                    Hyper('weight_decay', DECAY), Hyper('amsgrad', BOOL), MAXIMIZE]),
    optim('RMSprop', [Hyper('lr', LR), Hyper('alpha', (0.99, 0.9, 0.5, 0.0)),
                      Hyper('eps', (1e-08, 1e-06, 0.001, 0.1)), Hyper('weight_decay', DECAY),
                      Hyper('momentum', (0.0, 0.9, 0.5)), Hyper('centered', BOOL), MAXIMIZE]),
    optim('Adagrad', [Hyper('lr', LR), Hyper('lr_decay', (0.0, 0.1, 0.5, 0.01)),
                      Hyper('weight_decay', DECAY), Hyper('initial_accumulator_value', (0.0, 0.1, 1.0, 2.5)),
                      Hyper('eps', (1e-10, 1e-06, 0.1)), MAXIMIZE]),
]

OPS = [
    # -- operators (version 1)
    binary('add', '+', ADD), binary('sub', '-', ADD), binary('mul', '*', MUL),
    binary('div', '/', MUL), binary('pow', '**', POW, domain='exponent'),
    Op('matmul@', [X(1, 3), Like('matmul')], form='binary', sym='@', prec=MUL),
    Op('neg-', [X()], form='prefix', sym='-', prec=UNARY, unary=True),
    Op('pos+', [X()], form='prefix', sym='+', prec=UNARY, unary=True, weight=0.2),
    Op('.T', [X()], lambda x: f'agT({x})', form='attr', unary=False, numbers=False),
    # -- element-wise (version 1)
    unary('exp', 'torch.exp'), unary('log', 'torch.log', 'pos'),
    unary('sqrt', 'torch.sqrt', 'pos'), unary('tanh', 'torch.tanh'),
    unary('sigmoid', 'torch.sigmoid'), unary('relu', 'torch.relu'),
    unary('abs', 'torch.abs'), unary('sin', 'torch.sin'), unary('cos', 'torch.cos'),
    unary('tan', 'torch.tan'), unary('atan', 'torch.atan'), unary('asin', 'torch.asin', 'unit'),
    unary('acos', 'torch.acos', 'unit'), unary('erf', 'torch.erf'),
    unary('log1p', 'torch.log1p', 'pos'), unary('expm1', 'torch.expm1'),
    unary('rsqrt', 'torch.rsqrt', 'pos'),
    Op('pow()', [X(), Like('bcast', domain='exponent')], lambda x, p: f'torch.pow({x}, {p})', ag='pow',
       numbers=False),
    Op('pow(x,n)', [X(), Num('exponent')], lambda x, p: f'torch.pow({x}, {p})', ag='pow', numbers=False),
    # -- reductions, shapes, nn (version 1)
    reduction('sum', 'torch.sum'), reduction('mean', 'torch.mean'),
    reduction('max', 'torch.max', values=True), reduction('prod', 'torch.prod'),
    Op('reshape', [X(), Dims('reshape')], lambda x, d: f'{x}.reshape({d})'),
    Op('transpose', [X(1, 3), Axes2()],
       lambda x, a: f'torch.transpose({x}, {a or "-2, -1"})'),
    Op('matmul', [X(1, 3), Like('matmul')], lambda a, b: f'torch.matmul({a}, {b})'),
    Op('softmax', [X(), Axis()], lambda x, d: f'torch.softmax({x}, dim={d or -1})'),
    Op('log_softmax', [X(), Axis()], lambda x, d: f'torch.log_softmax({x}, dim={d or -1})'),
    Op('mse', [X(), Like('bcast')], lambda a, b: f'F.mse_loss({a}, {b})'),
    Op('cross_entropy', [X(2, 2), Classes(), Choice('reduction', LOSS)],
       lambda x, c, r: f'F.cross_entropy({x}, {c}{kw("reduction", r)})'),
    Op('detach', [X()], lambda x: f'{x}.detach()', grad=False, unary=True, weight=0.3),
    Op('tensor', [X()], lambda x: f'{x}.detach().clone()', grad=False, unary=True, weight=0.3),
    Op('numel', [X()], lambda x: f'T(float({x}.numel()))', grad=False, weight=0.2, number=True),
    # -- new constant tensors (version 1): statements, and operands of a wanted shape
    Op('zeros', [Dims()], lambda d: f'torch.zeros({d})', form='source', weight=0.2,
       fits=lambda s: len(s) >= 1),
    Op('ones', [Dims()], lambda d: f'torch.ones({d})', form='source', weight=0.2,
       fits=lambda s: len(s) >= 1),
    Op('full', [Num(), Dims()], lambda v, d: f'torch.full({d}, {v})', form='source', weight=0.2,
       fits=lambda s: len(s) >= 1),
    Op('arange', [Num('count')], lambda n: f'torch.arange({n}, dtype=torch.float64)', form='source',
       weight=0.2, fits=lambda s: len(s) == 1),
    Op('arange(a,b,s)', [Range('arange')], lambda r: f'torch.arange({r}, dtype=torch.float64)',
       form='source', ag='arange', fits=lambda s: len(s) == 1),
    Op('eye', [Num('count')], lambda n: f'torch.eye({n})', form='source', weight=0.2,
       fits=lambda s: len(s) == 2 and s[0] == s[1]),
    Op('linspace', [Range('linspace')], lambda r: f'torch.linspace({r})', form='source',
       fits=lambda s: len(s) == 1),

    # -- version 2 (LANGUAGE.md): rows wait until ./ag accepts them
    binary('floordiv', '//', MUL, grad=False), binary('mod', '%', MUL),
    unary('neg', 'torch.neg'), unary('sign', 'torch.sign'),
    Op('clamp', [X(), Num(kw='min', optional=True, kwonly=True), Num(kw='max', optional=True, kwonly=True)],
       lambda x, a, b: f'torch.clamp({x}{kw("min", a)}{kw("max", b)})' if a or b else
       f'torch.clamp({x}, min=-inf)', unary=True, needs={'kwargs'}, valid=bounded),
    Op('where', [Cond(), Like('bcast'), Like('bcast')], lambda c, a, b: f'torch.where({c}, {a}, {b})',
       needs={'compare'}),
    Op('minimum', [X(), Like('bcast')], lambda a, b: f'torch.minimum({a}, {b})'),
    Op('maximum', [X(), Like('bcast')], lambda a, b: f'torch.maximum({a}, {b})'),
    Op('leaky_relu', [X(), Num('slope', kw='negative_slope', optional=True, kwonly=True)],
       lambda x, s: f'F.leaky_relu({x}{kw("negative_slope", s)})', unary=True),
    Op('elu', [X(), Num('slope', kw='alpha', optional=True, kwonly=True)],
       lambda x, a: f'F.elu({x}{kw("alpha", a)})', unary=True, avoid=nan_inside),
    Op('gelu', [X(), Choice('approximate', ('none', 'tanh'))],
       lambda x, a: f'F.gelu({x}{kw("approximate", a)})', unary=True),
    unary('silu', 'F.silu'), unary('relu6', 'F.relu6', avoid=nan_inside),
    unary('hardsigmoid', 'F.hardsigmoid'), unary('hardswish', 'F.hardswish', avoid=nan_or_3_inside),
    Op('softplus', [X(), Num('slope', kw='beta', optional=True, kwonly=True),
                    Num('threshold', kw='threshold', optional=True, kwonly=True)],
       lambda x, b, t: f'F.softplus({x}{kw("beta", b)}{kw("threshold", t)})', unary=True),
    Op('logsumexp', [X(), Axis(optional=False), Flag('keepdim')],
       lambda x, d, k: f'torch.logsumexp({x}, dim={d}{kw("keepdim", k)})'),
    reduction('min', 'torch.min', values=True),
    Op('var', [X(), Axis(), Flag('unbiased'), Flag('keepdim', after=1)],
       lambda x, d, u, k: f'torch.var({x}{kw("dim", d)}{kw("unbiased", u)}{kw("keepdim", k)})'),
    Op('std', [X(), Axis(), Flag('unbiased'), Flag('keepdim', after=1)],
       lambda x, d, u, k: f'torch.std({x}{kw("dim", d)}{kw("unbiased", u)}{kw("keepdim", k)})'),
    Op('norm', [X(), Num('norm_p', optional=True), Axis(kwonly=True), Flag('keepdim', after=2)],
       lambda x, p, d, k: f'torch.norm({x}{kw("p", p)}{kw("dim", d)}{kw("keepdim", k)})',
       valid=norm_p_not_0),
    Op('argmax', [X(), Axis(), Flag('keepdim', after=1)],
       lambda x, d, k: f'torch.argmax({x}{kw("dim", d)}{kw("keepdim", k)})', grad=False),
    Op('argmin', [X(), Axis(), Flag('keepdim', after=1)],
       lambda x, d, k: f'torch.argmin({x}{kw("dim", d)}{kw("keepdim", k)})', grad=False),
    Op('squeeze', [X(), Axis()], lambda x, d: f'torch.squeeze({x}{pos(d)})'),
    Op('unsqueeze', [X(), Axis(optional=False, extra=1)], lambda x, d: f'torch.unsqueeze({x}, {d})'),
    Op('flatten', [X()], lambda x: f'torch.flatten({x})'),
    Op('permute', [X(), Perm()], lambda x, p: f'{x}.permute({p})'),
    Op('view', [X(), Dims('reshape')], lambda x, d: f'{x}.reshape({d})'),
    Op('t', [X(0, 2)], lambda x: f'torch.t({x})'),
    Op('cat', [Tensors('cat'), Axis(optional=False)], lambda ts, d: f'torch.cat({ts}, dim={d})',
       needs={'list_stack'}),
    Op('stack', [Tensors('stack'), Axis(optional=False)], lambda ts, d: f'torch.stack({ts}, dim={d})',
       needs={'list_stack'}),
    Op('[a, b]', [Tensors('stack')], lambda ts: f'torch.stack({ts})', form='list'),
    Op('index', [X(1, 3), Index()], form='index'),
    binary('eq', '==', COMPARE, grad=False, weight=0.3), binary('lt', '<', COMPARE, grad=False, weight=0.3),
    binary('ge', '>=', COMPARE, grad=False, weight=0.3), binary('ne', '!=', COMPARE, grad=False, weight=0.3),
    binary('le', '<=', COMPARE, grad=False, weight=0.3), binary('gt', '>', COMPARE, grad=False, weight=0.3),
    Op('remainder', [X(), Like('bcast')], lambda a, b: f'torch.remainder({a}, {b})', numbers=False,
       weight=0.5, avoid=quotient_overflows),
    Op('floor_divide', [X(), Like('bcast')], lambda a, b: f'torch.floor_divide({a}, {b})', grad=False,
       numbers=False, weight=0.5, avoid=quotient_overflows),
    Op('dot', [X(1, 1), Like('same')], lambda a, b: f'torch.dot({a}, {b})'),
    Op('mv', [X(2, 2), Like('vec')], lambda a, b: f'torch.mv({a}, {b})'),
    Op('mm', [X(2, 2), Like('mm')], lambda a, b: f'torch.mm({a}, {b})'),
    Op('select', [X(1, 3), Axis(optional=False), At()], lambda x, d, i: f'torch.select({x}, {d}, {i})'),
    # numbers: a PyTorch user's x.item() is a Python float; ag's number acts
    # beside a tensor as a 0-d constant, which T(...) is (on the left of `/`
    # a float would make PyTorch compute reciprocal(x) * v)
    Op('item', [One()], lambda x: f'T({x}.item())', grad=False, number=True, weight=0.3),
    Op('round', [One(), Num('digits', kw='ndigits')], lambda x, n: f'T(round({x}.item(), {n}))',
       grad=False, number=True, weight=0.3),
    Op('len', [X(1, 3)], lambda x: f'T(float(len({x})))', grad=False, number=True, weight=0.2),
    Op('zeros_like', [X()], lambda x: f'torch.zeros_like({x})', grad=False, weight=0.2),
    Op('ones_like', [X()], lambda x: f'torch.ones_like({x})', grad=False, weight=0.2),
    loss('mse_loss', 'F.mse_loss'), loss('l1_loss', 'F.l1_loss'),
    loss('smooth_l1_loss', 'F.smooth_l1_loss', extra=[Num('pos', kw='beta', optional=True, kwonly=True)]),
    loss('huber_loss', 'F.huber_loss', extra=[Num('pos', kw='delta', optional=True, kwonly=True)]),
    loss('binary_cross_entropy', 'F.binary_cross_entropy', ('unit', 'unit')),
    loss('binary_cross_entropy_with_logits', 'F.binary_cross_entropy_with_logits', ('any', 'unit')),
    loss('kl_div', 'F.kl_div', ('logp', 'unit')),
    loss('hinge_embedding_loss', 'F.hinge_embedding_loss', ('any', 'sign'),
         extra=[Num('pos', kw='margin', optional=True, kwonly=True)]),
    Op('nll_loss', [X(2, 2, 'logp'), Classes(), Choice('reduction', LOSS)],
       lambda x, c, r: f'F.nll_loss({x}, {c}{kw("reduction", r)})'),
    Op('cosine_embedding_loss', [X(2, 2), Like('same'), Like('rows', domain='sign'),
                                 Num('margin', kw='margin', optional=True, kwonly=True),
                                 Choice('reduction', LOSS)],
       lambda a, b, y, m, r: f'F.cosine_embedding_loss({a}, {b}, {y}{kw("margin", m)}{kw("reduction", r)})'),
    Op('triplet_margin_loss', [X(2, 2), Like('same'), Like('same'),
                               Num('pos', kw='margin', optional=True, kwonly=True),
                               Choice('reduction', LOSS)],
       lambda a, p, n, m, r: f'F.triplet_margin_loss({a}, {p}, {n}{kw("margin", m)}{kw("reduction", r)})'),
]

OPS += OPTIMS

# Syntax features, each with a one-line probe that ./ag accepts iff it has
# the feature. Rows name the features they need; the generator uses the rest
# (methods, keywords, torch. prefixes) for variety where they are present.
FEATURES = {
    'operators': 'x = tensor([1., 2.], grad)\ny = -x * x + x / 2 - x ** 2 @ x',
    'calls': 'exp(tensor([1.]))',
    'attr_T': 'tensor([[1., 2.]]).T',
    'shape_attr': 'zeros(tensor([1., 2.]).shape)',
    'functions': 'f(a, b) = a * b + 1\nf(tensor([1.]), 2)',
    'kwargs': 'sum(tensor([[1., 2.]]), dim=0)',
    'method': 'tensor([1., 2.]).sum()',
    'torch_prefix': 'torch.exp(tensor([1.]))',
    'backward_method': 'x = tensor([1.], grad)\n(x * 2).sum().backward()',
    'compare': 'tensor([1., 2.]) > 1',
    'index': 'tensor([1., 2., 3.])[1:]',
    'floordiv': 'tensor([7.]) // 2 + tensor([7.]) % 2',
    'nan_literal': 'tensor([nan, inf, -inf])',
    'list_stack': 'x = tensor([1., 2.])\n[x, 2 * x]',
    'blocks': 'for i in range(2) { y = tensor([1.]) * i }',
    'requires_grad_kw': 'tensor([1.], requires_grad=True)',
}

ROWS = {op.name: op for op in OPS}
assert len(ROWS) == len(OPS), 'two rows share a name'
