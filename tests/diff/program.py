"""program.py -- random programs: their model, the generator, and how one
program is written in ag and in PyTorch.

A program is a list of statements: leaves (inputs, some requiring grad),
assignments of expressions over earlier names, function definitions,
backward calls and zero_grad. Every leaf and assignment has its value
reported, and every backward the gradient of every leaf (reports()).

The generator builds a program statement by statement and runs each in
PyTorch as it goes, so it always knows the shapes it is choosing operands
for; an attempt PyTorch rejects is thrown away and tried again. It is not a
fuzzer of the parser: it writes only what the probed ag accepts.
"""
import copy
import math
import random
from dataclasses import dataclass, field

import torch

import ops
from ops import ATOM, POSTFIX, POW, UNARY, Op, Param

# ---- the model ---------------------------------------------------------------


@dataclass
class Ref:
    name: str


@dataclass
class Lit:
    """A constant: a number (value is a float) or a list literal."""
    value: object


@dataclass
class Call:
    op: Op
    args: list
    style: str = 'fn'   # 'fn' name(...), 'method' x.name(...), 'torch' torch.name(...)


@dataclass
class TList:
    items: list


@dataclass
class Leaf:
    name: str
    value: object
    grad: bool
    kwform: bool = False  # requires_grad=True rather than the word grad


@dataclass
class Assign:
    name: str
    expr: object


@dataclass
class FuncDef:
    name: str
    params: list
    expr: object


@dataclass
class Backward:
    expr: object
    method: bool = False


@dataclass
class ZeroGrad:
    name: str


@dataclass
class Optimize:
    """`opt = ctor; for i in range(steps) { opt.zero_grad(); loss = expr;
    loss.backward(); opt.step() }` on one line: ctor is a Call of an optim
    row, its first argument the TList of variables. zero: 'none'
    (opt.zero_grad()), 'zeros' (set_to_none=False) or 'keep' (no zero_grad:
    the gradients add up); method: loss.backward() or backward(loss)."""
    name: str
    ctor: object
    loss: str
    expr: object
    steps: int
    zero: str = 'none'
    method: bool = True

    def params(self):
        return [r.name for r in self.ctor.args[0].items]


@dataclass
class Program:
    stmts: list = field(default_factory=list)


class UserFn(Op):
    """A call of a function the program defines."""

    def __init__(self, name):
        super().__init__(name, [], lambda *a: f"{name}({', '.join(a)})", form='user')


def reports(prog, i):
    """What statement i reports, as keys ('value', name, i) or ('grad',
    leaf, i): values after leaves and assignments, leaf gradients after
    each backward."""
    st = prog.stmts[i]
    if isinstance(st, (Leaf, Assign)):
        return [('value', st.name, i)]
    grads = [('grad', s.name, i) for s in prog.stmts[:i] if isinstance(s, Leaf) and s.grad]
    if isinstance(st, Backward):
        return grads
    if isinstance(st, Optimize):
        return [('value', st.loss, i)] + [('value', n, i) for n in st.params()] + grads
    return []


def walk(e):
    """Every expression node under e, e first."""
    yield e
    if isinstance(e, Call):
        for a in e.args:
            if a is not None and not isinstance(a, Param):
                yield from walk(a)
    elif isinstance(e, TList):
        for a in e.items:
            yield from walk(a)


def exprs(st):
    if isinstance(st, Optimize):
        return [st.ctor, st.expr]
    return [st.expr] if isinstance(st, (Assign, FuncDef, Backward)) else []


def set_expr(st, j, e):
    """Replaces exprs(st)[j] by e."""
    if isinstance(st, Optimize) and j == 0:
        st.ctor = e
    else:
        st.expr = e


def ops_used(prog):
    return sorted({n.op.name for st in prog.stmts for e in exprs(st) for n in walk(e)
                   if isinstance(n, Call) and not isinstance(n.op, UserFn)})


def flat(v):
    return [x for y in v for x in flat(y)] if isinstance(v, list) else [v]


def features(prog):
    """Program-level features for the tallies: broadcasting, values used
    several times, dead values, special inputs, accumulation, functions."""
    f = set()
    uses = {}
    for st in prog.stmts:
        for e in exprs(st):
            for n in walk(e):
                if isinstance(n, Ref):
                    uses[n.name] = uses.get(n.name, 0) + 1
    if any(c > 1 for c in uses.values()):
        f.add('reuse')
    defined = [st.name for st in prog.stmts if isinstance(st, Assign)]
    if any(uses.get(n, 0) == 0 for n in defined):
        f.add('dead value')
    if sum(isinstance(st, Backward) for st in prog.stmts) > 1:
        f.add('accumulate')
    for st in prog.stmts:
        if isinstance(st, FuncDef):
            f.add('function')
        if isinstance(st, ZeroGrad):
            f.add('zero_grad')
        if isinstance(st, Optimize):
            f.add('optimizer')
            f.add(f'optimizer, {st.steps} step(s)')
            if len(st.params()) > 1:
                f.add('optimizer, 2 variables')
            f.add({'none': 'opt.zero_grad()', 'zeros': 'opt.zero_grad(set_to_none=False)',
                   'keep': 'optimizer without zero_grad'}[st.zero])
            for a in st.ctor.args[1:]:
                if a is not None and a.value not in (0, False):
                    f.add(f'{st.ctor.op.name} {a.kwname}')
        vals = flat(st.value) if isinstance(st, Leaf) else []
        for e in exprs(st):
            for n in walk(e):
                if isinstance(n, Lit):
                    vals += flat(n.value)
                if isinstance(n, Call) and n.style != 'fn':
                    f.add(n.style)
                if isinstance(n, Call) and any(isinstance(a, Param) and a.keyword for a in n.args):
                    f.add('keyword')
        if isinstance(st, Leaf) and not vals:
            f.add('empty input')
        for v in vals:
            if math.isnan(v):
                f.add('nan input')
            elif math.isinf(v):
                f.add('inf input')
            elif v == 0 and math.copysign(1, v) < 0:
                f.add('-0 input')
            elif abs(v) > 1e100:
                f.add('huge input')
            elif 0 < abs(v) < 1e-100:
                f.add('tiny input')
    return f


# ---- writing numbers ---------------------------------------------------------

def py_number(v):
    if math.isnan(v):
        return 'nan'
    if math.isinf(v):
        return 'inf' if v > 0 else '-inf'
    return repr(float(v))


def ag_number(v, caps):
    """The exact decimal (Python's repr is the shortest that reads back
    exactly); 1e999 reads as inf in every ag version."""
    if math.isinf(v):
        return ('inf' if v > 0 else '-inf') if 'nan_literal' in caps else \
               ('1e999' if v > 0 else '-1e999')
    if math.isnan(v):
        return 'nan' if 'nan_literal' in caps else 'sqrt(-1)'
    return repr(float(v))


def nested(v, fn):
    return '[' + ', '.join(nested(x, fn) for x in v) + ']' if isinstance(v, list) else fn(v)


def ag_literal(v, caps):
    """A number or list literal; nan (which version 1 cannot write) as
    L * sqrt(M): M is -1 where nan goes, else 1, so L's values (-0 and inf
    included) pass exactly."""
    if 'nan_literal' in caps or not any(math.isnan(x) for x in flat(v)):
        text = nested(v, lambda x: ag_number(x, caps))
        return text, (UNARY if text.startswith('-') else ATOM)
    lits = nested(v, lambda x: '0' if math.isnan(x) else ag_number(x, caps))
    mask = nested(v, lambda x: '-1' if math.isnan(x) else '1')
    return f'({lits} * sqrt({mask}))', ATOM


# ---- rendering ---------------------------------------------------------------

def paren(text_prec, need):
    text, prec = text_prec
    return f'({text})' if prec < need else text


def render_expr(e, lang, caps, scalar_ok=False):
    """(text, precedence) of e in 'ag' or 'py' (PyTorch). scalar_ok: a number
    literal may be a Python float, as a PyTorch user writes `x * 2` or
    `x ** 0.5` (PyTorch takes fast paths for some scalar exponents: sqrt for
    0.5, rsqrt for -0.5...; they are what a user gets, so they are compared).
    Never on the left of `/`, where PyTorch computes `2 / x` as
    reciprocal(x) * 2: ag's number is a 0-d constant, so T(2.) / x is the
    same program."""
    R = lambda x, s=False: render_expr(x, lang, caps, s)
    if isinstance(e, Ref):
        return e.name, ATOM
    if isinstance(e, Lit):
        if lang == 'ag':
            return ag_literal(e.value, caps)
        if scalar_ok and not isinstance(e.value, list):
            t = py_number(e.value)
            return t, UNARY if t.startswith('-') else ATOM
        return f'T({nested(e.value, py_number)})', ATOM
    if isinstance(e, TList):
        # In ag a list of list literals is one nested literal, not a list of
        # tensors: [[1, 2], [3, 4]] is a (2, 2) constant, and [[1, 2], [3], x]
        # a ragged one. tensor(...) keeps each item a tensor of its own, as
        # PyTorch's list of tensors (cat's items may differ in length).
        items = [f'tensor({R(x)[0]})' if lang == 'ag' and isinstance(x, Lit) else R(x)[0]
                 for x in e.items]
        return '[' + ', '.join(items) + ']', ATOM
    op, args = e.op, e.args
    if op.form == 'binary':
        a, b = args
        lit_a, lit_b = isinstance(a, Lit), isinstance(b, Lit) or op.sym in ('/', '//', '%', '**')
        p = op.prec
        if p == ops.COMPARE:  # never a chain a < b < c
            left, right = paren(R(a, not lit_b), p + 1), paren(R(b, not lit_a), p + 1)
        elif p == POW:  # right-associative; the left operand binds tighter than unary
            left, right = paren(R(a, not lit_b), POSTFIX), paren(R(b, not lit_a), UNARY)
        else:
            left, right = paren(R(a, not lit_b), p), paren(R(b, not lit_a), p + 1)
        return f'{left} {op.sym} {right}', p
    if op.form == 'prefix':
        return op.sym + paren(R(args[0]), UNARY + 1), UNARY
    if lang == 'py' and op.form != 'index':
        return op.torch(*[None if a is None else a.torch if isinstance(a, Param) else R(a)[0]
                          for a in args]), ATOM
    if op.form == 'attr':
        return paren(R(args[0]), POSTFIX) + '.T', POSTFIX
    if op.form == 'index':
        return paren(R(args[0]), POSTFIX) + f'[{args[1].ag}]', POSTFIX
    if op.form == 'list':
        return R(args[0])
    parts = []
    for a in args:
        if a is None:
            continue
        text = a.ag if isinstance(a, Param) else R(a)[0]
        parts.append(f'{a.kwname}={text}' if isinstance(a, Param) and a.keyword else text)
    parts = [p for p in parts if p != '']
    if e.style == 'method':
        return f"{paren(R(args[0]), POSTFIX)}.{op.ag}({', '.join(parts[1:])})", POSTFIX
    prefix = 'torch.' if e.style == 'torch' else ''
    return f"{prefix}{op.ag}({', '.join(parts)})", ATOM


def render_stmt(st, lang, caps):
    E = lambda e: render_expr(e, lang, caps)[0]
    if isinstance(st, Leaf):
        if lang == 'py':
            lit = f'T({nested(st.value, py_number)})'
            return f'{st.name} = {lit}' + ('.requires_grad_()' if st.grad else '')
        lit = ag_literal(st.value, caps)[0]
        if not st.grad:
            return f'{st.name} = tensor({lit})'
        return f"{st.name} = tensor({lit}, {'requires_grad=True' if st.kwform else 'grad'})"
    if isinstance(st, Assign):
        return f'{st.name} = {E(st.expr)}'
    if isinstance(st, FuncDef):
        if lang == 'py':
            return f"def {st.name}({', '.join(st.params)}): return {E(st.expr)}"
        return f"{st.name}({', '.join(st.params)}) = {E(st.expr)}"
    if isinstance(st, Backward):
        if lang == 'py' or st.method:
            return paren(render_expr(st.expr, lang, caps), POSTFIX) + '.backward()'
        return f'backward({E(st.expr)})'
    if isinstance(st, ZeroGrad):
        return f'{st.name}.grad = None' if lang == 'py' else f'zero_grad({st.name})'
    if isinstance(st, Optimize):
        zero = {'none': f'{st.name}.zero_grad(set_to_none=True)' if lang == 'py' else
                        f'{st.name}.zero_grad()',
                'zeros': f'{st.name}.zero_grad(set_to_none=False)', 'keep': None}[st.zero]
        back = f'{st.loss}.backward()' if st.method or lang == 'py' else f'backward({st.loss})'
        # The step changes its parameters in place, in both: a loss that is
        # a parameter itself (v0 = x0) or a view of one in PyTorch (x0.T,
        # x0.squeeze() of a 0-d x0; ag has no views, and returns x0 itself
        # for x0.T of a 0-d or 1-D x0) would change with it in one and not
        # the other. The loss is a copy in both, so the values compared are
        # the step's, not the aliasing's (tests/shell/python/inplace_alias.py
        # checks that).
        loss = f'clone({E(st.expr)})' if lang == 'ag' else f'({E(st.expr)}).clone()'
        body = '; '.join(x for x in (zero, f'{st.loss} = {loss}', back, f'{st.name}.step()') if x)
        if lang == 'py':  # PyTorch 1.13's zero_grad() sets zeros: ag's sets None, as PyTorch 2
            return f'{st.name} = {E(st.ctor)}\nfor i in range({st.steps}): {body}'
        return f'{st.name} = {E(st.ctor)}; for i in range({st.steps}) {{ {body} }}'
    raise TypeError(st)


PRELUDE = '''import math, torch
import torch.nn.functional as F
torch.set_default_dtype(torch.float64)
inf, nan = math.inf, math.nan
def T(v): return torch.tensor(v)                       # a float64 constant
def C(v): return torch.tensor(v, dtype=torch.int64)    # class indices
def agT(x): return x.transpose(-2, -1) if x.dim() >= 2 else x  # ag's x.T
'''


def namespace():
    ns = {}
    exec(PRELUDE, ns)
    return ns


# ---- the generator -----------------------------------------------------------

SPECIALS = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1e300, -1e300, 1e-300, 5e-324, -5e-324,
            2.2250738585072014e-308, 1.7976931348623157e308, 1e20, -1e20, 1e-20, 710.0, -746.0,
            40.0, -40.0, 1e-8]
STRICT = ('unit', 'logp', 'sign')  # domains an arbitrary value may violate


class Retry(Exception):
    """This attempt made something PyTorch rejects: throw it away."""


@dataclass
class Entry:
    name: str
    shape: tuple
    grad: bool       # requires grad (in PyTorch)
    leaf: bool
    boolean: bool
    number: bool = False  # a number in ag (item, len...): no methods or attributes


class Gen:
    def __init__(self, rng, rows, caps):
        self.rng, self.caps = rng, caps
        self.rows = [r for r in rows if r.form not in ('source', 'optim')]
        self.optims = [r for r in rows if r.form == 'optim']
        self.unary = [r for r in rows if r.unary]
        self.sources = [r for r in rows if r.form == 'source']
        self.compares = [r for r in rows if r.form == 'binary' and r.prec == ops.COMPARE]
        self.prog = Program()
        self.ns = namespace()
        self.pool = []
        self.count = {}
        self.shapes = {}
        self.staged = []
        self.depth = 0
        self.want, self.extra, self.op = None, {}, None
        self.in_body, self.params = False, []
        self.opt_params = []  # the variables of the optimizer being written
        self.relaxed = False
        self.specials = rng.random() < 0.35
        self.broadcast = rng.random() < 0.6

    # -- names and PyTorch
    def name(self, prefix):
        n = self.count.get(prefix, 0)
        self.count[prefix] = n + 1
        return f'{prefix}{n}'

    def eval(self, e):
        try:
            v = eval(render_expr(e, 'py', self.caps)[0], self.ns)
        except Exception as err:
            raise Retry(err)
        if not isinstance(v, torch.Tensor):
            raise Retry('not a tensor')
        return v

    def shape(self, e):
        """PyTorch's shape of e; more than 64 elements is refused (ag would
        summarise their printed _enc: every reported value stays small)."""
        if id(e) not in self.shapes:
            self.shapes[id(e)] = (e, tuple(self.eval(e).shape))
        shape = self.shapes[id(e)][1]
        if math.prod(shape) > 64:
            raise Retry('too large')
        return shape

    def execute(self, st):
        exec(render_stmt(st, 'py', self.caps), self.ns)

    # -- values
    def value(self, domain):
        rng = self.rng
        if domain == 'unit':
            return rng.choice((0.0, 1.0)) if rng.random() < 0.1 else rng.random()
        if domain == 'sign':
            return rng.choice((-1.0, 1.0))
        if domain == 'exponent' and rng.random() < 0.7:
            return rng.choice((2.0, 3.0, 0.5, -1.0, 0.0, 1.0, -2.0, 1.5, -0.5))
        if self.specials and rng.random() < 0.15:
            v = rng.choice(SPECIALS)
        else:
            r = rng.random()
            v = (float(rng.randint(-3, 3)) if r < 0.3 else rng.randint(-12, 12) / 4 if r < 0.45
                 else rng.uniform(-3, 3) if r < 0.85 else rng.choice((-1, 1)) * 10 ** rng.uniform(-6, 6))
        if domain == 'pos':
            return abs(v) if rng.random() < 0.9 else v
        if domain == 'logp':
            return -abs(v) - 0.1 if not math.isnan(v) else v
        return v

    def values(self, shape, domain):
        if not shape:
            return self.value(domain)
        return [self.values(shape[1:], domain) for _ in range(shape[0])]

    def number(self, domain):
        rng = self.rng
        table = {'exponent': (2.0, 3.0, 0.5, -1.0, -2.0, 0.0, 1.0, 1.5, -0.5, 4.0),
                 'slope': (0.01, 0.1, 0.5, 1.0, 2.0), 'threshold': (20.0, 1.0, 5.0, 0.5),
                 'pos': (1.0, 0.5, 2.0, 0.0), 'margin': (0.0, 0.5, -0.5, 1.0),
                 'norm_p': (1.0, 2.0, 3.0, 0.5, math.inf)}
        if domain in table and rng.random() < 0.8:
            return rng.choice(table[domain])
        v = self.value('any')
        return abs(v) if domain in ('pos', 'slope', 'threshold') else v

    def ag_number(self, v):
        return ag_number(v, self.caps)

    py_number = staticmethod(py_number)

    # -- operands
    def leaf(self, shape, domain, grad=None):
        grad = self.rng.random() < 0.75 if grad is None else grad
        st = Leaf(self.name('x' if grad else 'c'), self.values(shape, domain), grad,
                  'requires_grad_kw' in self.caps and self.rng.random() < 0.3)
        try:
            self.execute(st)
        except Exception as err:
            raise Retry(err)
        self.staged.append(st)
        self.pool.append(Entry(st.name, tuple(shape), grad, True, False))
        return Ref(st.name)

    def tensor(self, want, make, domain):
        """An operand: a value from the pool, a new leaf, a literal or a new
        constant tensor, sometimes through an element-wise op, sometimes a
        nested call."""
        rng = self.rng
        if self.relaxed:
            want, make = (lambda s: True), (lambda: ops.random_shape(rng))
        numbers = self.op is None or self.op.numbers
        if self.depth < 1 and rng.random() < 0.15 and domain not in STRICT and not self.relaxed:
            try:
                e = self.call(self.pick(self.rows))
                if want(self.shape(e)) and (numbers or not self.is_number(e)):
                    return e
            except Retry:
                pass
        cands = [p for p in self.pool if want(p.shape) and not p.boolean and (numbers or not p.number)]
        if self.in_body:
            cands = [p for p in cands if p.name in self.params]
        if domain in STRICT:
            cands = []
        r = rng.random()
        if cands and r < 0.6:
            recent = [p for p in cands[-4:] if p.grad] or cands[-4:]
            e = Ref(rng.choice(recent if rng.random() < 0.6 else cands).name)
        else:
            shape = make()
            r = rng.random()
            fit = [s for s in self.sources if s.fits and s.fits(shape)]
            if r < 0.6 and not self.in_body:
                e = self.leaf(shape, domain)
            elif r < 0.9 or not fit or domain != 'any':
                e = Lit(self.values(shape, domain))
            else:
                self.want = shape
                e = self.call(self.pick(fit))
                self.want = None
        if self.depth < 2 and rng.random() < 0.2 and domain not in STRICT and self.unary:
            try:
                e = self.call(self.pick(self.unary), first=e)
            except Retry:  # an operand it is not given (Op.avoid): e as it is
                pass
        return e

    def tensor_list(self, items):
        return TList(items)

    def ref(self, name):
        return Ref(name)

    def comparison(self):
        if not self.compares:
            raise Retry('no comparisons')
        return self.call(self.pick(self.compares))

    def pick(self, rows):
        return self.rng.choices(rows, [r.weight for r in rows])[0]

    def is_number(self, e):
        """Whether e is a number in ag (not a tensor): item(x), len(x), a
        variable holding one, and an operator over numbers and number
        literals (ag's numbers follow Python's float arithmetic)."""
        if isinstance(e, Ref):
            return any(p.name == e.name and p.number for p in self.pool)
        if not isinstance(e, Call):
            return False
        if e.op.number:
            return True
        if e.op.form in ('binary', 'prefix') and e.op.prec != ops.COMPARE:
            kids = [a for a in e.args if a is not None]
            nums = [self.is_number(a) for a in kids]
            return any(nums) and all(n or (isinstance(a, Lit) and not isinstance(a.value, list))
                                     for n, a in zip(nums, kids))
        return False

    def call(self, op, first=None):
        saved = self.want, self.extra, self.op
        self.extra, self.op = {}, op
        self.depth += 1
        try:
            args = []
            for i, kind in enumerate(op.args):
                args.append(first if i == 0 and first is not None else kind.gen(self, args))
        except (ValueError, IndexError, ZeroDivisionError) as err:  # e.g. no class of 0
            raise Retry(err)
        finally:
            self.depth -= 1
            self.want, self.extra, self.op = saved
        if op.valid and not op.valid(args):
            raise Retry(f'{op.name}: arguments it departs on')
        if op.avoid:
            values = [self.eval(a) for k, a in zip(op.args, args) if k.tensor]
            try:
                avoid = op.avoid(values)
            except RuntimeError:  # operands that do not fit: the op refuses them anyway
                avoid = False
            if avoid:
                raise Retry(f'{op.name}: operands it departs on')
        self.keywords(op, args)
        style = 'fn'
        if op.form == 'call' and args and isinstance(args[0], (Ref, Call)) and op.args[0].tensor \
                and not self.is_number(args[0]):
            r = self.rng.random()
            if f'method:{op.ag}' in self.caps and r < 0.25:
                style = 'method'
            elif 'torch_prefix' in self.caps and r > 0.92 and not op.number:
                style = 'torch'
        return Call(op, args, style)

    def keywords(self, op, args):
        """Optional arguments after a left-out one become keywords (or are
        left out too, without keyword support); kwonly ones need it."""
        has_kw = 'kwargs' in self.caps
        kwmode = False
        for i, (kind, a) in enumerate(zip(op.args, args)):
            if a is None:
                kwmode = kwmode or kind.optional
                continue
            if not isinstance(a, Param):
                continue
            if a.keyword or kwmode or (has_kw and kind.kw and self.rng.random() < 0.3):
                if not has_kw or not kind.kw:
                    args[i] = None
                    kwmode = True
                    continue
                a.keyword = kwmode = True

    # -- statements
    def commit(self, st, value):
        self.prog.stmts += self.staged + [st]
        self.staged = []
        if isinstance(st, Assign):
            self.execute(st)
            self.pool.append(Entry(st.name, tuple(value.shape), value.requires_grad, False,
                                   value.dtype == torch.bool, self.is_number(st.expr)))

    def rollback(self):
        for st in self.staged:
            self.ns.pop(st.name, None)
            self.pool = [p for p in self.pool if p.name != st.name]
        self.staged = []
        self.shapes = {}

    def assign(self, rows=None):
        for _ in range(30):
            try:
                e = self.call(self.pick(rows or self.rows + self.sources))
                v = self.eval(e)
                if v.numel() > 64 or v.dim() > 4:
                    raise Retry('too large')
                self.commit(Assign(self.name('v'), e), v)
                self.shapes = {}
                return True
            except (Retry, RuntimeError):
                self.rollback()
        return False

    def function(self):
        """f(a[, b]) = EXPR over its parameters, then called once or twice."""
        args = [p for p in self.pool if not p.boolean and not p.number]
        if not args:
            return
        args = self.rng.sample(args, min(len(args), self.rng.randint(1, 2)))
        params = ['a', 'b'][:len(args)]
        self.params = params
        saved = list(self.pool)
        for p, a in zip(params, args):
            self.ns[p] = self.ns[a.name]
            self.pool.append(Entry(p, a.shape, a.grad, False, False))
        self.in_body = True
        try:
            body = self.call(self.pick([r for r in self.rows if r.form != 'source']))
            self.eval(body)
            number = self.is_number(body)
        except Retry:
            body = None
        self.in_body = False
        self.pool = saved
        for p in params:
            self.ns.pop(p, None)
        self.shapes = {}
        if body is None:
            return
        fn = FuncDef(self.name('f'), params, body)
        self.execute(fn)
        self.prog.stmts.append(fn)
        user = UserFn(fn.name)
        user.number = number  # f(a) = item(a) returns a number
        for _ in range(self.rng.randint(1, 2)):
            actual = []
            for a in args:
                same = [p for p in self.pool if p.shape == a.shape and not p.boolean and not p.number]
                actual.append(Ref(self.rng.choice(same).name))
            e = Call(user, actual)
            try:
                self.commit(Assign(self.name('v'), e), self.eval(e))
            except Retry:
                self.rollback()

    def backward(self):
        """backward(sum(v * W) + ...) over a few values that require grad."""
        cands = [p for p in self.pool if p.grad and not p.boolean]
        if not cands:
            return False
        nonleaf = [p for p in cands if not p.leaf] or cands
        chosen = self.rng.sample(nonleaf, min(len(nonleaf), self.rng.randint(1, 2)))
        if self.rng.random() < 0.3:
            chosen.append(self.rng.choice(cands))
        R = ops.ROWS
        terms = []
        for p in chosen:
            r = self.rng.random()
            if not p.shape and r < 0.5:
                terms.append(Ref(p.name))
            elif r < 0.3:
                terms.append(Call(R['sum'], [Ref(p.name), None, None]))
            else:
                w = Lit(self.weights(p.shape))
                terms.append(Call(R['sum'], [Call(R['mul'], [Ref(p.name), w]), None, None]))
        loss = terms[0]
        for t in terms[1:]:
            loss = Call(R['add'], [loss, t])
        st = Backward(loss, 'backward_method' in self.caps and self.rng.random() < 0.3)
        try:
            self.execute(st)
        except Exception:
            return False
        self.prog.stmts.append(st)
        return True

    def optimize(self, op):
        """An optimizer over one or two leaves that require grad, and a loop
        of 1 to 4 steps on a loss over the leaves: their values after it
        (and the last loss, and every gradient) are reported."""
        rng = self.rng
        leaves = [p for p in self.pool if p.leaf and p.grad and not p.number]
        if not leaves:
            return False
        for _ in range(20):
            params = rng.sample(leaves, min(len(leaves), rng.randint(1, 2)))
            # the loss over the variables, now and then other leaves too (the
            # gradients of those that require grad add up from step to step)
            others = rng.random() < 0.2
            self.in_body, self.params = True, [p.name for p in (self.pool if others else params)
                                               if p.leaf and not p.boolean]
            try:
                self.opt_params = [p.name for p in params]
                ctor = self.call(op)
                body = self.call(self.pick(self.rows))
                v = self.eval(body)
                if not v.requires_grad or v.numel() > 64:
                    raise Retry('no gradient')
            except Retry:
                self.shapes = {}
                continue
            finally:
                self.in_body, self.params = False, []
            r, shape = rng.random(), tuple(v.shape)
            R = ops.ROWS
            if not shape and r < 0.5:
                loss = body
            elif r < 0.7:
                loss = Call(R['sum'], [Call(R['mul'], [body, Lit(self.weights(shape))]), None, None])
            else:
                loss = Call(R['sum' if r < 0.85 else 'mean'], [body, None, None])
            st = Optimize(self.name('opt'), ctor, self.name('v'), loss, rng.randint(1, 4),
                          rng.choice(('none', 'none', 'none', 'zeros', 'keep')), rng.random() < 0.8)
            self.shapes = {}
            nan_before = any(bool(self.ns[p.name].isnan().any()) for p in params)
            try:
                self.execute(st)
                # a step that makes nan, fed to an op given nan only in one
                # element (Op.avoid), would reach a documented departure
                if not nan_before and any(n.op.avoid for n in walk(body) if isinstance(n, Call)) \
                        and any(bool(self.ns[p.name].isnan().any()) for p in params):
                    raise Retry('nan made by a step')
            except Exception:  # the leaves may have changed: start them again
                self.ns = namespace()
                for done in self.prog.stmts:
                    exec(render_stmt(done, 'py', self.caps), self.ns)
                continue
            self.prog.stmts.append(st)
            return True
        return False

    def weights(self, shape):
        if not shape:
            return self.rng.choice((-2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 3.0))
        return [self.weights(shape[1:]) for _ in range(shape[0])]


def generate(seed, rows, caps):
    """One random program (deterministic in seed, rows and caps)."""
    rng = random.Random(seed)
    g = Gen(rng, rows, caps)
    for _ in range(rng.randint(1, 2)):
        try:
            g.leaf(ops.random_shape(rng), 'any', grad=True)
        except Retry:
            pass
    g.prog.stmts += g.staged
    g.staged = []
    if g.optims and rng.random() < 0.2:  # before any value that a step would make stale
        g.optimize(g.pick(g.optims))
    if 'functions' in caps and rng.random() < 0.15:
        g.function()
    for _ in range(rng.randint(1, 6)):
        g.assign()
    done = g.backward()
    if done and rng.random() < 0.15:  # a second pass from the leaves: gradients accumulate
        g.pool = [p for p in g.pool if p.leaf]
        if rng.random() < 0.3 and any(p.grad for p in g.pool):
            st = ZeroGrad(rng.choice([p for p in g.pool if p.grad]).name)
            g.execute(st)
            g.prog.stmts.append(st)
        for _ in range(rng.randint(1, 3)):
            g.assign()
        g.backward()
    if rng.random() < 0.03:  # one statement with arguments of any shape: both may refuse it
        g.relaxed = True
        try:
            e = g.call(g.pick(g.rows))
            g.prog.stmts += g.staged + [Assign(g.name('v'), e)]
        except Retry:
            pass
    return normalize(g.prog)


def flatten(prog):
    """The program with every nested call hoisted into a statement of its
    own, `tN = ...` before the statement that uses it: (flat program, for
    each flat statement the original's index, and for each original
    statement the temporaries it got as (name, subexpression)). Function
    bodies stay as they are."""
    flat_stmts, origin, temps = [], [], []
    count = [0]

    def lift(e, i, mine):
        """Hoists the calls below e (not e itself), innermost first."""
        kids = e.args if isinstance(e, Call) else e.items if isinstance(e, TList) else []
        for k, a in enumerate(kids):
            whole = copy.deepcopy(a)
            if isinstance(a, (Call, TList)):
                lift(a, i, mine)
            if isinstance(a, Call):
                name = f't{count[0]}'
                count[0] += 1
                mine.append((name, whole))
                flat_stmts.append(Assign(name, a))
                origin.append(i)
                kids[k] = Ref(name)

    for i, st in enumerate(copy.deepcopy(prog.stmts)):
        mine = []
        if isinstance(st, (Assign, Backward)):
            lift(st.expr, i, mine)
        temps.append(mine)
        flat_stmts.append(st)
        origin.append(i)
    return Program(flat_stmts), origin, temps


def normalize(prog):
    """Renames leaves x0, x1..., constants c0..., values v0..., functions f0...
    in order of definition (generation and shrinking leave gaps)."""
    new, count = {}, {}

    def number(name, p):
        new[name] = f'{p}{count.get(p, 0)}'
        count[p] = count.get(p, 0) + 1
    for st in prog.stmts:
        if isinstance(st, (Leaf, Assign, FuncDef)):
            p = ('x' if st.grad else 'c') if isinstance(st, Leaf) else 'v' if isinstance(st, Assign) else 'f'
            number(st.name, p)
        elif isinstance(st, Optimize):
            number(st.name, 'opt')
            number(st.loss, 'v')
    for st in prog.stmts:
        if isinstance(st, (Leaf, Assign, FuncDef, ZeroGrad, Optimize)):
            st.name = new.get(st.name, st.name)
        if isinstance(st, Optimize):
            st.loss = new.get(st.loss, st.loss)
        for e in exprs(st):
            for n in walk(e):
                if isinstance(n, Ref):
                    n.name = new.get(n.name, n.name)
                if isinstance(n, Call) and isinstance(n.op, UserFn):
                    n.op = UserFn(new.get(n.op.name, n.op.name))
    return prog
