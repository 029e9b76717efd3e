"""gradgrad.py -- random programs that differentiate gradients, in Python,
run by ag as a .py program and by PyTorch (the machinery of dtypes.py:
the same text on both sides, every value compared with its dtype, shape
and requires_grad, element by element).

Each program makes a few leaves, a few values from them (smooth ops,
kinks, broadcasting, reductions, matrix products), a first loss, and then
one of:

- `g0 = torch.autograd.grad(L0, [leaves], create_graph=True)`, a second
  loss built from g0 (sum of squares, a weighted sum, a gradient penalty
  `L0 + c * sum(g^2)`), differentiated by `L1.backward()` or by another
  `torch.autograd.grad` -- sometimes with create_graph again and a third
  order;
- `L0.backward(create_graph=True)`, then a second loss built from the
  leaves' `.grad`, differentiated by `backward()` (its gradient summed into
  the `.grad` it was built from, or into a `.grad` set to None first) or
  by `torch.autograd.grad`;
- a plain `L0.backward()`.

Intermediates may `retain_grad()` and leaves or intermediates may
`register_hook(lambda g: g * c)` (or `g + c`, `-g`); every gradient,
`.grad` and retained `.grad` is reported after each pass.

Not generated (ag's hooks follow rules PyTorch 1.13, the reference here,
does not; README): a leaf's hook or an intermediate's retain_grad in a
program that calls `torch.autograd.grad` -- PyTorch 1.13 runs no leaf hook
for autograd.grad's result, and fills a retained `.grad` during
autograd.grad too -- and a hook registered after retain_grad on the same
tensor (PyTorch 1.13 retains the gradient before that hook).
"""
import random
from dataclasses import dataclass

import dtypes
from dtypes import DGen, DProgram, Retry, Stmt

# Ops as PyTorch text ({a}: the operand, {A}: the operand wrapped for a
# method or an operator, {b} {B}: a second one). min_dim: operands' ndim.
UNARY = [
    ('sin', 'torch.sin({a})', 0), ('cos', 'torch.cos({a})', 0), ('exp', 'torch.exp({a})', 0),
    ('tanh', 'torch.tanh({a})', 0), ('sigmoid', 'torch.sigmoid({a})', 0),
    ('**2', '{A} ** 2', 0), ('**3', '{A} ** 3', 0), ('pow(2.5)', '({A} * {A} + 1).pow(2.5)', 0),
    ('log', 'torch.log({A} * {A} + 1)', 0), ('sqrt', 'torch.sqrt({A} * {A} + 0.5)', 0),
    ('relu', 'torch.relu({a})', 0), ('abs', 'torch.abs({a})', 0), ('neg', '-{A}', 0),
    ('softplus', 'torch.nn.functional.softplus({a})', 0), ('atan', 'torch.atan({a})', 0),
    ('gelu', 'torch.nn.functional.gelu({a})', 0), ('erf', 'torch.erf({a})', 0),
    ('*c', '{A} * 2.5', 0), ('+c', '{A} + 1.5', 0), ('c/', '1.5 / ({A} * {A} + 1)', 0),
    ('sum', '{A}.sum()', 0), ('mean', '{A}.mean()', 0), ('sum(0)', 'torch.sum({a}, 0)', 1),
    ('softmax', 'torch.softmax({a}, -1)', 1), ('log_softmax', 'torch.log_softmax({a}, -1)', 1),
    ('logsumexp', 'torch.logsumexp({a}, -1)', 1), ('norm', 'torch.sqrt(({A} ** 2).sum() + 1)', 0),
    ('clamp', '{A}.clamp(-1, 1)', 0), ('T', '{A}.T', 2),
]
BINARY = [
    ('+', '{A} + {B}'), ('-', '{A} - {B}'), ('*', '{A} * {B}'), ('/', '{A} / ({B} * {B} + 1)'),
    ('matmul', 'torch.matmul({a}, {b})'), ('maximum', 'torch.maximum({a}, {b})'),
    ('where', 'torch.where({A} > 0, {a}, {b})'), ('mse_loss', 'torch.nn.functional.mse_loss({a}, {b})'),
]
HOOKS = ['lambda g: g * 2', 'lambda g: g * 0.5', 'lambda g: g + 1.5', 'lambda g: -g',
         'lambda g: g * g']


@dataclass
class GProgram(DProgram):
    kind = 'gradgrad'


STRUCTURE = ('autograd.grad(create_graph=True)', 'backward(create_graph=True)', 'third order',
             'backward through x.grad', 'x.grad = None', 'retain_grad', 'hook: leaf',
             'hook: intermediate', 'gradient penalty', 'plain backward', 'allow_unused')


def features(prog):
    tags = {t for st in prog.stmts for t in st.tags}
    return {'gradgrad program'} | {f'gradgrad: {t}' for t in STRUCTURE if t in tags}


def probe(ag):
    """The ops of UNARY and BINARY this ag differentiates twice (one
    program each: refused ones are not generated)."""
    head = ('x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)\n'
            'y = torch.tensor([[1.0, 0.5, -0.5], [2.0, -1.5, 0.75]], requires_grad=True)\n'
            'z = torch.tensor([[0.5], [1.0], [-2.0]], requires_grad=True)')
    rows = [(n, t.format(a='x', A='x', b='y', B='y')) for n, t, _ in UNARY] + \
        [(n, t.format(a='x', A='x', b='z' if n == 'matmul' else 'y', B='y')) for n, t in BINARY]
    progs = [GProgram([Stmt(f'{head}\nv = {text}\n'  # squared: linear ops have a second derivative too
                            'g = torch.autograd.grad((v * v).sum(), [x], create_graph=True)\n'
                            'r = torch.autograd.grad((g[0] * g[0]).sum(), [x])', ['r[0]'])])
             for _, text in rows]
    res = dtypes.run_ag(ag, progs)
    ok = {n for (n, _), r, p in zip(rows, res, progs) if not r.error and not r.crash
          and not dtypes.run_torch(p).error}
    return ok, [n for n, _ in rows if n not in ok]


class GGen(DGen):
    def __init__(self, rng, ok_ops):
        self.ok = ok_ops
        super().__init__(rng)
        self.prog = GProgram()
        self.uses_grad = False   # the program will call torch.autograd.grad
        self.retained = []       # intermediates that retain_grad
        self.leaves = []

    def leaf(self):
        rng = self.rng
        shape = rng.choice(((), (3,), (2, 3), (2,), (1, 3), (3, 1)))
        f32 = rng.random() < 0.1
        name = self.name('x')
        lit = self.lit_text(self.values(shape))
        kw = ', dtype=torch.float32' if f32 else ''
        if self.try_stmt(Stmt(f'{name} = torch.tensor({lit}{kw}, requires_grad=True)', [name],
                              ['leaf float32' if f32 else 'leaf float64']), False):
            self.leaves.append(name)

    def values(self, shape):
        rng = self.rng
        if shape:
            return [self.values(shape[1:]) for _ in range(shape[0])]
        r = rng.random()
        if r < 0.05:
            return rng.choice((0.0, -0.0, 1.0, -1.0))
        if r < 0.3:
            return rng.randint(-8, 8) / 4
        return round(rng.uniform(-2, 2), rng.choice((1, 2, 17)))

    def operand(self, depth=0):
        names = self.tensors(lambda t: t.requires_grad)
        if not names:
            raise Retry('no operand')
        if depth < 1 and self.rng.random() < 0.25:
            e, tags = self.expr(depth + 1)
            return self.wrap(e), tags
        return self.rng.choice(names), []

    def expr(self, depth=0):
        rng = self.rng
        a, ta = self.operand(depth)
        A = self.wrap(a)
        un = [u for u in UNARY if u[0] in self.ok]
        bi = [b for b in BINARY if b[0] in self.ok]
        try:
            av = self.ns_eval(a)
        except Exception:
            raise Retry('operand PyTorch refuses')
        un = [u for u in un if av.dim() >= u[2]]
        if rng.random() < 0.55 and un:
            n, t, _ = rng.choice(un)
            return t.format(a=a, A=A), ta + [n]
        if not bi:
            raise Retry('no binary op')
        n, t = rng.choice(bi)
        if rng.random() < 0.25:  # a constant operand
            b, tb = f'torch.tensor({self.lit_text(self.values(av.shape[-1:]))})', []
        else:
            b, tb = self.operand(depth)
        return t.format(a=a, A=A, b=b, B=self.wrap(b)), ta + tb + [n]

    def assign(self):
        e, tags = self.expr()
        name = self.name('v')
        return self.try_stmt(Stmt(f'{name} = {e}', [name], tags), False)

    def decorate(self):
        """retain_grad or a hook on a value just made, or a hook on a leaf
        (each kept from the programs PyTorch 1.13 differs in: module doc)."""
        rng = self.rng
        vals = self.tensors(lambda t: t.requires_grad and not t.is_leaf)
        r = rng.random()
        if r < 0.4 and vals and not self.uses_grad:
            v = rng.choice(vals)
            if v not in self.retained and self.try_stmt(Stmt(f'{v}.retain_grad()', [], ['retain_grad']), False):
                self.retained.append(v)
        elif r < 0.7 and [v for v in vals if v not in self.retained]:
            # not after retain_grad: PyTorch 1.13 retains what arrives
            # before a later hook, PyTorch 2 and ag what the hooks made
            self.hook(rng.choice([v for v in vals if v not in self.retained]), 'hook: intermediate')
        elif not self.uses_grad and self.leaves:
            self.hook(rng.choice(self.leaves), 'hook: leaf')

    def hook(self, name, tag):
        h = self.name('h')
        hook = self.rng.choice(HOOKS)
        self.try_stmt(Stmt(f'{h} = {name}.register_hook({hook})', [], [tag, hook]), False)

    def weights(self, v):
        t = self.ns_eval(v)
        return f'torch.tensor({self.lit_text(self.values(tuple(t.shape)))})'

    def loss(self, names):
        """A scalar from some of names: sum(v * W), sum(v ** 2), mean(v)."""
        rng = self.rng
        picks = rng.sample(names, min(len(names), rng.randint(1, 2)))
        terms = []
        for v in picks:
            r = rng.random()
            if r < 0.4:
                terms.append(f'({v} * {self.weights(v)}).sum()')
            elif r < 0.7:
                terms.append(f'({v} ** 2).sum()')
            elif r < 0.85:
                terms.append(f'{self.wrap(v)}.mean()')
            else:
                terms.append(f'{self.wrap(v)}.sum()')
        return ' + '.join(terms)

    def reports(self):
        return [f'{x}.grad' for x in self.leaves] + [f'{v}.grad' for v in self.retained]

    def grad_stmt(self, out, loss, inputs, create, tags):
        """out = torch.autograd.grad(loss, inputs, ...): True if kept."""
        used = self.used_inputs(loss, inputs)
        unused = self.rng.random() < 0.2 and len(used) < len(inputs)
        ins = inputs if unused else used
        if not ins:
            return False
        kw = (', create_graph=True' if create else '') + (', allow_unused=True' if unused else '')
        text = f'{out} = torch.autograd.grad({loss}, [{", ".join(ins)}]{kw})'
        ok = self.try_stmt(Stmt(text, [f'{out}[{i}]' for i in range(len(ins))] + self.reports(),
                                tags + (['allow_unused'] if unused else [])), False)
        return ins if ok else False

    def used_inputs(self, loss, inputs):
        """The inputs the loss depends on (autograd.grad refuses the others
        without allow_unused), found by PyTorch."""
        import torch
        try:
            L = eval(loss, self.ns)
            gs = torch.autograd.grad(L, [self.ns[x] for x in inputs], allow_unused=True,
                                     retain_graph=True)
        except Exception:
            return []
        return [x for x, g in zip(inputs, gs) if g is not None]

    def second_loss(self, grads, first):
        """A loss built from the gradients: sum of squares, a weighted sum,
        sometimes plus the first loss (a gradient penalty)."""
        rng = self.rng
        terms = []
        for g in grads:
            r = rng.random()
            if r < 0.45:
                terms.append(f'({g} ** 2).sum()')
            elif r < 0.8:
                terms.append(f'({g} * {self.weights(g)}).sum()')
            else:
                terms.append(f'torch.tanh({g}).sum()')
        text = ' + '.join(terms)
        if first and rng.random() < 0.3:
            return f'{first} + 0.5 * ({text})', ['gradient penalty']
        return text, []


def generate(seed, ok_ops):
    rng = random.Random(seed)
    g = GGen(rng, ok_ops)
    r = rng.random()
    mode = 'grad' if r < 0.55 else 'backward' if r < 0.9 else 'plain'
    g.uses_grad = mode == 'grad' or rng.random() < 0.3
    for _ in range(rng.randint(1, 3)):
        g.leaf()
    if not g.leaves:
        return g.prog
    for _ in range(rng.randint(1, 5)):
        try:
            g.assign()
            if rng.random() < 0.35:
                g.decorate()
        except Retry:
            continue
    vals = g.tensors(lambda t: t.requires_grad and not t.is_leaf) or g.leaves
    for _ in range(5):
        try:
            loss = g.loss(vals)
        except Retry:
            continue
        if g.try_stmt(Stmt(f'L0 = {loss}', ['L0'], ['loss']), False):
            break
    else:
        return g.prog
    (first_grad if mode == 'grad' else backward_create if mode == 'backward' else plain)(g)
    return g.prog


def first_grad(g):
    """g0 = autograd.grad(L0, leaves, create_graph=True), then L1 from g0,
    by backward or autograd.grad (a third order sometimes)."""
    rng = g.rng
    ins = g.grad_stmt('g0', 'L0', g.leaves, True, ['autograd.grad(create_graph=True)'])
    if not ins:
        return
    grads = [f'g0[{i}]' for i in range(len(ins)) if g.ns['g0'][i] is not None]
    if not grads:
        return
    text, tags = g.second_loss(grads, 'L0')
    if not g.try_stmt(Stmt(f'L1 = {text}', ['L1'], tags), False):
        return
    r = rng.random()
    if r < 0.4:
        g.try_stmt(Stmt('L1.backward()', g.reports(), ['backward']), False)
        return
    third = r > 0.75
    ins1 = g.grad_stmt('g1', 'L1', g.leaves, third, ['autograd.grad'] + (['third order'] if third else []))
    if not ins1 or not third:
        return
    grads = [f'g1[{i}]' for i in range(len(ins1)) if g.ns['g1'][i] is not None
             and g.ns['g1'][i].requires_grad]
    if not grads:
        return
    text, tags = g.second_loss(grads, None)
    if not g.try_stmt(Stmt(f'L2 = {text}', ['L2'], tags), False):
        return
    if rng.random() < 0.5:
        g.try_stmt(Stmt('L2.backward()', g.reports(), ['backward']), False)
    else:
        g.grad_stmt('g2', 'L2', g.leaves, False, ['autograd.grad'])


def backward_create(g):
    """L0.backward(create_graph=True), then a loss of the leaves' .grad
    differentiated again."""
    rng = g.rng
    if not g.try_stmt(Stmt('L0.backward(create_graph=True)', g.reports(),
                           ['backward(create_graph=True)']), False):
        return
    grads = [f'{x}.grad' for x in g.leaves
             if g.ns[x].grad is not None and g.ns[x].grad.requires_grad]
    if not grads:
        return
    text, tags = g.second_loss(grads, 'L0' if rng.random() < 0.5 else None)
    if not g.try_stmt(Stmt(f'L1 = {text}', ['L1'], tags), False):
        return
    r = rng.random()
    if g.uses_grad:
        g.grad_stmt('g1', 'L1', g.leaves, False, ['autograd.grad'])
        return
    if r < 0.4:
        for x in g.leaves:
            g.try_stmt(Stmt(f'{x}.grad = None', [], ['x.grad = None']), False)
    g.try_stmt(Stmt('L1.backward()', g.reports(), ['backward through x.grad']), False)


def plain(g):
    g.try_stmt(Stmt('L0.backward()', g.reports(), ['plain backward']), False)


if __name__ == '__main__':  # print a few programs
    import sys
    ok = {n for n, *_ in UNARY} | {n for n, _ in BINARY}
    for s in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
        print(f'# seed {s}')
        print(dtypes.text(generate(s, ok)))
