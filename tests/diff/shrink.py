"""shrink.py -- delta debugging of a disagreeing program to a minimal one.

`still(programs)` runs a list of candidate programs (in one ag process) and
says, for each, whether it still disagrees in the same way; `values(program)`
is PyTorch's result of one (its reported values by key). Passes, repeated
until none makes progress or the budget of candidates is spent:

  1. statements: ddmin over the list (Zeller's complement removal);
  2. cut: an assignment replaced by a leaf holding PyTorch's value of it,
     so that what computed it can go (pass 1 removes it next round);
  3. subtrees: a call replaced by one of its tensor operands, an optional
     argument left out, an alias `v1 = v0` inlined;
  4. inputs: list literals named as constants (so that what follows applies
     to them), a leaf without grad, cut to one row along an axis, each
     element replaced by a simpler one (1, 0, -1, 2, 0.5, rounded).
"""
import copy
import math

from ops import Param
from program import (Assign, Call, FuncDef, Leaf, Lit, Optimize, Ref, TList, exprs, flat, normalize,
                     set_expr, walk)


class Shrinker:
    def __init__(self, still, values, budget=3000):
        self.still, self.values, self.budget = still, values, budget

    def first(self, cands):
        """The first candidate that still fails, or None."""
        cands = [c for c in cands if c is not None][:max(self.budget, 0)]
        if not cands:
            return None
        self.budget -= len(cands)
        for c, ok in zip(cands, self.still(cands)):
            if ok:
                return c
        return None

    def run(self, prog):
        progress = True
        while progress and self.budget > 0:
            progress = False
            for step in (self.statements, self.cut, self.subtrees, self.inputs):
                better = step(prog)
                if better is not None:
                    prog, progress = better, True
        return normalize(prog)

    # 1
    def statements(self, prog):
        stmts, n, changed = prog.stmts, 2, False
        while len(stmts) >= 2 and self.budget > 0:
            size = math.ceil(len(stmts) / n)
            chunks = [(k, k + size) for k in range(0, len(stmts), size)]
            cands = [with_stmts(prog, stmts[:a] + stmts[b:]) for a, b in chunks]
            found = self.first(cands)
            if found is not None:
                stmts, changed = found.stmts, True
                n = max(n - 1, 2)
            elif n >= len(stmts):
                break
            else:
                n = min(2 * n, len(stmts))
        if len(stmts) == 1 and self.first([with_stmts(prog, [])]) is not None:
            stmts = []
        return with_stmts(prog, stmts) if changed else None

    # 2
    def cut(self, prog):
        cands, values = [], self.values(prog)
        for i, st in enumerate(prog.stmts):
            tv = values.get(('value', st.name, i)) if isinstance(st, Assign) else None
            if tv is None or not any(isinstance(n, Call) for n in walk(st.expr)):
                continue
            new = copy.deepcopy(prog)
            new.stmts[i] = Leaf(st.name, unflat(tv), needs_grad(st))
            cands.append(new)
        return self.first(cands)

    # 3
    def subtrees(self, prog):
        cands = []
        for i, st in enumerate(prog.stmts):
            if isinstance(st, Assign) and isinstance(st.expr, (Ref, Lit)):
                new = with_stmts(prog, prog.stmts[:i] + prog.stmts[i + 1:])
                for later in new.stmts[i:]:
                    for e in exprs(later):
                        for path, node in list(paths(e)):
                            if isinstance(node, Ref) and node.name == st.name:
                                if path:
                                    parent = get(e, path[:-1])
                                    kids = parent.items if isinstance(parent, TList) else parent.args
                                    kids[path[-1]] = copy.deepcopy(st.expr)
                                else:
                                    later.expr = copy.deepcopy(st.expr)
                cands.append(new)
        for i, st in enumerate(prog.stmts):
            for j, e in enumerate(exprs(st)):
                for path, node in paths(e):
                    if not isinstance(node, Call):
                        continue
                    for k, a in enumerate(node.args):
                        if isinstance(a, (Ref, Call, Lit)):
                            cands.append(replace(prog, i, j, path, a))
                        if isinstance(a, Param) and node.op.args[k].optional:
                            new = copy.deepcopy(prog)
                            target = get(exprs(new.stmts[i])[j], path)
                            if drop_argument(target, k):
                                cands.append(new)
            if isinstance(st, Optimize):
                cands += optimizer_variants(prog, i)
        return self.first(cands)

    # 4
    def inputs(self, prog):
        named = name_literals(prog)
        if named is not None and self.first([named]) is not None:
            return named
        for i, st in enumerate(prog.stmts):
            if not isinstance(st, Leaf):
                continue
            cands = []
            if st.grad:
                cands.append(with_leaf(prog, i, st.value, False))
            v = st.value
            depth = 0
            while isinstance(v, list) and v:
                for k in range(len(v) if len(v) > 1 else 0):
                    cands.append(with_leaf(prog, i, one_along(st.value, depth, k), st.grad))
                v, depth = v[0], depth + 1
            better = self.first(cands)
            if better is not None:
                return better
        changed, best = False, prog
        for i, st in enumerate(prog.stmts):
            if not isinstance(st, Leaf):
                continue
            for k in range(len(flat(st.value))):
                x = flat(best.stmts[i].value)[k]
                simpler = [s for s in (1.0, 0.0, -1.0, 2.0, 0.5) +
                           ((float(round(x)), round(x, 2)) if math.isfinite(x) else ())
                           if simpler_than(s, x)]
                found = self.first([with_leaf(best, i, set_flat(best.stmts[i].value, k, s),
                                              best.stmts[i].grad) for s in simpler])
                if found is not None:
                    best, changed = found, True
        return best if changed else None


# ---- helpers -----------------------------------------------------------------

def name_literals(prog):
    """Every list literal in an expression moved into a constant leaf of its
    own, `cN = tensor([...])`, before its statement (None if there is none)."""
    new, out, k = copy.deepcopy(prog), [], 0
    for st in new.stmts:
        for e in exprs(st):
            if isinstance(st, FuncDef):
                continue
            for path, node in list(paths(e)):
                if isinstance(node, Lit) and isinstance(node.value, list) and path:
                    name = f'c_{k}'
                    k += 1
                    out.append(Leaf(name, node.value, False))
                    parent = get(e, path[:-1])
                    kids = parent.items if isinstance(parent, TList) else parent.args
                    kids[path[-1]] = Ref(name)
        out.append(st)
    new.stmts = out
    return new if k else None


def with_stmts(prog, stmts):
    new = copy.deepcopy(prog)
    new.stmts = copy.deepcopy(stmts)
    return new


def with_leaf(prog, i, value, grad):
    new = copy.deepcopy(prog)
    new.stmts[i] = Leaf(prog.stmts[i].name, copy.deepcopy(value), grad, prog.stmts[i].kwform)
    return new


def simpler_than(s, x):
    if not math.isfinite(x):
        return True
    if s == x and math.copysign(1, s) == math.copysign(1, x):
        return False
    return len(repr(s)) < len(repr(x)) or (abs(s) < abs(x) if math.isfinite(x) else True)


def unflat(tv):
    shape, vals = tv
    it = iter(vals)

    def build(s):
        return next(it) if not s else [build(s[1:]) for _ in range(s[0])]
    return build(shape)


def needs_grad(st):
    """Whether an assignment's value depends on a leaf that requires grad
    (normalized names: x requires grad, c does not)."""
    return any(isinstance(n, Ref) and n.name.startswith('x') for n in walk(st.expr))


def one_along(v, depth, k):
    """v keeping only index k of axis depth (its size becomes 1)."""
    if depth == 0:
        return v[k:k + 1]
    return [one_along(x, depth - 1, k) for x in v]


def set_flat(v, k, s):
    count = [0]

    def go(x):
        if isinstance(x, list):
            return [go(y) for y in x]
        count[0] += 1
        return s if count[0] - 1 == k else x
    return go(v)


def paths(e, path=()):
    """(path, node) for every node; a path is the argument indices from e."""
    yield path, e
    if isinstance(e, Call):
        for k, a in enumerate(e.args):
            if a is not None and not isinstance(a, Param):
                yield from paths(a, path + (k,))
    elif isinstance(e, TList):
        for k, a in enumerate(e.items):
            yield from paths(a, path + (k,))


def get(e, path):
    for k in path:
        e = e.items[k] if isinstance(e, TList) else e.args[k]
    return e


def drop_argument(call, k):
    """Leaves out call's optional argument k: the arguments after it that
    were positional become keywords (else they would take its place).
    False when one of them has no keyword."""
    later = [a for a in call.args[k + 1:] if isinstance(a, Param) and not a.keyword]
    if any(not a.kwname for a in later):
        return False
    call.args[k] = None
    for a in later:
        a.keyword = True
    return True


def optimizer_variants(prog, i):
    """An optimizer's loop made simpler: fewer steps, one variable fewer,
    zero_grad() as the default, loss.backward()."""
    st, out = prog.stmts[i], []

    def variant(**changes):
        new = copy.deepcopy(prog)
        for k, v in changes.items():
            setattr(new.stmts[i], k, v)
        return new
    out += [variant(steps=k) for k in range(1, st.steps)]
    items = st.ctor.args[0].items
    for k in range(len(items) if len(items) > 1 else 0):
        new = copy.deepcopy(prog)
        del new.stmts[i].ctor.args[0].items[k]
        out.append(new)
    if st.zero != 'none':
        out.append(variant(zero='none'))
    if not st.method:
        out.append(variant(method=True))
    return out


def replace(prog, i, j, path, sub):
    """prog with the node at path in exprs(statement i)[j] replaced by sub."""
    new = copy.deepcopy(prog)
    st = new.stmts[i]
    sub = copy.deepcopy(sub)
    if not path:
        set_expr(st, j, sub)
        return new
    parent = get(exprs(st)[j], path[:-1])
    if isinstance(parent, TList):
        parent.items[path[-1]] = sub
    else:
        parent.args[path[-1]] = sub
    return new
