"""difftest.py -- ag against PyTorch on random programs (make difftest).

    python3 tests/diff/difftest.py [--ag ./ag] [--seed 1] [--count 500] [--out build/difftest]

Probes what ./ag accepts, generates COUNT programs from SEED, runs each in
PyTorch and in ag, compares every reported value exactly (compare.py),
shrinks each distinct disagreement to a minimal program, writes it to
OUT/failures/, and prints the agreement figures with per-op and per-feature
tallies. Exit status 1 when some program disagrees beyond the tolerance.
See tests/diff/README.md.
"""
import argparse
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import compare  # noqa: E402
import dtypes  # noqa: E402
import gradgrad  # noqa: E402
import ops  # noqa: E402
from compare import TOLERATED, category  # noqa: E402
from engines import run_ag, run_anchored, run_torch  # noqa: E402
from program import (Assign, Backward, Gen, Program, Retry, features,  # noqa: E402
                     generate, ops_used, render_stmt, reports, PRELUDE)
import random  # noqa: E402
from shrink import Shrinker  # noqa: E402

BATCH = 100


# ---- probing -------------------------------------------------------------------

def accepts(ag, text):
    """Whether ag runs text, and its message. A crash counts as accepted: the
    row is then generated, and its crash reported, not hidden."""
    try:
        r = subprocess.run([ag, '-'], input=text + '\n', capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return True, 'hang'
    return r.returncode != 1, r.stderr.strip()


def methods(ag):
    """The builtins that are also methods (x.exp()): those whose `:help NAME`
    says "Also a method". A version that never says it takes every builtin
    as a method: then all of them are."""
    names = sorted({op.ag for op in ops.OPS if op.form in ('call', 'optim')})
    try:
        r = subprocess.run([ag, '-'], input=''.join(f':help {n}\n' for n in names),
                           capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return set()
    found, current = set(), None
    for line in r.stdout.splitlines():
        head = line.split('(', 1)[0]
        if head in names and not line.startswith(' '):
            current = head
        elif current and 'Also a method' in line:
            found.add(current)
    if not found and 'Also a method' not in r.stdout:
        return {f'method:{n}' for n in names}
    return {f'method:{n}' for n in found}


def probe(ag):
    """The syntax features ./ag accepts, then the rows whose features are
    there and whose sample statement it accepts. Returns (caps, rows, notes):
    notes are rows refused for a reason other than not knowing the name or
    the syntax (a bug the probe would otherwise hide). caps also holds
    'method:NAME' for each builtin that is a method."""
    caps = {f for f, text in ops.FEATURES.items() if accepts(ag, text)[0]}
    if 'method' in caps:
        caps |= methods(ag)
    rows, notes = [], []
    import random
    for op in ops.OPS:
        if not op.needs <= caps:
            continue
        ok, err = False, ''
        for seed in range(8):
            # where's condition is a comparison: the probe has one to write it
            g = Gen(random.Random(seed), [op, ops.ROWS['lt']], caps)
            g.specials = False
            if op.form == 'optim':  # a whole loop, of a loss made with exp
                g.rows = [ops.ROWS['exp']]
                g.leaf((2,), 'any', grad=True)
                g.prog.stmts += g.staged
                if not g.optimize(op):
                    continue
                prog = g.prog
                ok, err = accepts(ag, '\n'.join(render_stmt(s, 'ag', caps) for s in prog.stmts))
                break
            try:
                e = g.call(op)
                g.eval(e)
            except Retry:
                continue
            prog = Program(g.staged + [Assign('v', e)])
            ok, err = accepts(ag, '\n'.join(render_stmt(s, 'ag', caps) for s in prog.stmts))
            break
        if ok:
            rows.append(op)
        elif err and not any(w in err for w in ('unknown name', 'unknown function', 'expected',
                                                'list elements must be', 'unexpected',
                                                'argument', 'keyword', 'not a function')):
            notes.append(f'{op.name}: refused by the probe: {err}')
    return caps, rows, notes


# ---- running -------------------------------------------------------------------

def run_batch(ag, progs, caps):
    """[(torch result, ag result, mismatches)] for programs run together."""
    tres = [run_torch(p, caps) for p in progs]
    ares = run_ag(ag, progs, caps, tres)
    out = []
    for p, t, a in zip(progs, tres, ares):
        mm = compare.compare(p, t, a)
        if any(m.kind in ('nan', 'inf', 'value') for m in mm):
            compare.anchor(mm, a, run_anchored(p, caps, a))
        out.append((t, a, mm))
    return out


def run_dtypes(ag, progs):
    """The same for programs of dtypes.py (Python text, `ag --python -`)."""
    tres = [dtypes.run_torch(p) for p in progs]
    ares = dtypes.run_ag(ag, progs)
    return [(t, a, dtypes.compare(p, t, a)) for p, t, a in zip(progs, tres, ares)]


def run_any(ag, progs, caps):
    """run_batch or run_dtypes for each program, in the programs' order."""
    dt = [k for k, p in enumerate(progs) if isinstance(p, dtypes.DProgram)]
    old = [k for k in range(len(progs)) if k not in set(dt)]
    out = [None] * len(progs)
    for ks, res in ((dt, run_dtypes(ag, [progs[k] for k in dt]) if dt else []),
                    (old, run_batch(ag, [progs[k] for k in old], caps) if old else [])):
        for k, r in zip(ks, res):
            out[k] = r
    return out


def program_kind(seed, dshare, gshare):
    """'dtypes' (dtypes.py), 'gradgrad' (gradgrad.py) or 'ops' (program.py):
    the kind of the program of this seed (a seed keeps its dtypes program
    whatever the gradgrad share)."""
    r = random.Random(seed * 7919 + 17).random()
    return 'dtypes' if r < dshare else 'gradgrad' if r < dshare + gshare else 'ops'


def used(p):
    return dtypes.ops_used(p) if isinstance(p, dtypes.DProgram) else ops_used(p)


def feats(p):
    if isinstance(p, gradgrad.GProgram):
        return gradgrad.features(p)
    return dtypes.features(p) if isinstance(p, dtypes.DProgram) else features(p)


def stmt_lines(p, caps):
    if isinstance(p, dtypes.DProgram):
        return [line for st in p.stmts for line in st.text.split('\n')]
    return [render_stmt(st, 'ag', caps) for st in p.stmts]


def signature(mm):
    """What must stay the same while shrinking: the category and, for an
    error, the first words of its message."""
    cat = category(mm)
    words = ''
    for m in mm:
        if m.kind == cat and cat in ('ag-error', 'torch-error', 'crash'):
            words = ' '.join(m.detail.split(': ', 1)[-1].split()[:3])
    return cat, words


def shrink(ag, prog, caps, mm, budget):
    sig = signature(mm)
    if isinstance(prog, dtypes.DProgram):
        return dtypes.shrink(prog, lambda cands: [signature(r[2]) == sig
                                                  for r in run_dtypes(ag, cands)], budget)

    def still(cands):
        return [signature(r[2]) == sig for r in run_batch(ag, cands, caps)]
    return Shrinker(still, lambda p: run_torch(p, caps).items, budget).run(prog)


# ---- reports -------------------------------------------------------------------

def ag_text(prog, caps, show):
    """The program as a user would type it, printing the values in show
    (backward prints the gradients itself)."""
    lines = []
    for i, st in enumerate(prog.stmts):
        lines.append(render_stmt(st, 'ag', caps))
        for key in reports(prog, i):
            if key in show and not isinstance(st, Backward):
                lines.append(key[1] + '.grad' * (key[0] == 'grad'))
    return '\n'.join(lines) + '\n'


def py_text(prog, caps, show):
    lines = [PRELUDE, 'torch.set_printoptions(precision=4)']
    for i, st in enumerate(prog.stmts):
        lines.append(render_stmt(st, 'py', caps))
        for kind, name, _ in reports(prog, i):
            if kind == 'grad' and (isinstance(st, Backward) or (kind, name, i) in show):
                lines.append(f'print("{name}.grad =", {name}.grad)')
            elif kind == 'value' and (kind, name, i) in show:
                lines.append(f'print({name})')
    return '\n'.join(lines) + '\n'


def describe(key):
    if not key:
        return ''
    kind, name, i = key
    return f'{name} (statement {i + 1})' if kind == 'value' else f'{name}.grad (after statement {i + 1})'


def exact_table(tres, ares, mm):
    out = []
    for m in mm:
        out.append(f'{m.kind}: {describe(m.key)} {m.detail}'
                   + (f' ({m.ulps} ulps)' if m.kind in ('ulps', 'value') else ''))
    out.append('')
    for key, tv in tres.items.items():
        av = ares.items.get(key, 'missing (ag stopped before it)')
        out.append(f'{describe(key)}:')
        out.append(f'  PyTorch {tv if tv is None else [repr(x) for x in tv[1]]}')
        out.append(f'  ag      {av if not isinstance(av, tuple) else [repr(x) for x in av[1]]}')
    if ares.error:
        out.append(f'ag error at statement {ares.error[0] + 1}: {ares.error[1]}')
    if tres.error:
        out.append(f'PyTorch error at statement {tres.error[0] + 1}: {tres.error[1]}')
    if ares.crash:
        out.append(f'ag: {ares.crash}')
    return '\n'.join(out) + '\n'


def write_dtypes_failure(ag, d, prog, tres, ares, mm, count, seed):
    """program.py (run by both: ag as a .py file), ag.out, torch.out, exact.txt."""
    with open(f'{d}/program.py', 'w') as f:
        f.write(dtypes.text(prog))
    try:
        r = subprocess.run([ag, f'{d}/program.py'], capture_output=True, text=True, timeout=30)
        text = r.stdout + r.stderr + ('' if r.returncode in (0, 1) else f'(exit status {r.returncode})\n')
    except subprocess.TimeoutExpired:
        text = '(no answer in 30s)\n'
    with open(f'{d}/ag.out', 'w') as f:
        f.write(text)
    r = subprocess.run([sys.executable, f'{d}/program.py'], capture_output=True, text=True, timeout=60)
    with open(f'{d}/torch.out', 'w') as f:
        f.write(r.stdout + (r.stderr.strip().splitlines() or [''])[-1] + '\n')
    with open(f'{d}/exact.txt', 'w') as f:
        f.write(f'{count} generated program(s) disagreed this way; the first was seed {seed}\n\n')
        for m in mm:
            f.write(f'{m.kind}: {describe(m.key)} {m.detail}\n')


def write_failure(ag, d, prog, caps, tres, ares, mm, count, seed):
    os.makedirs(d, exist_ok=True)
    if isinstance(prog, dtypes.DProgram):
        return write_dtypes_failure(ag, d, prog, tres, ares, mm, count, seed)
    show = {m.key for m in mm if m.key}
    with open(f'{d}/program.ag', 'w') as f:
        f.write(ag_text(prog, caps, show))
    with open(f'{d}/program.py', 'w') as f:
        f.write(py_text(prog, caps, show))
    try:
        r = subprocess.run([ag, f'{d}/program.ag'], capture_output=True, text=True, timeout=30)
        text = r.stdout + r.stderr + ('' if r.returncode in (0, 1) else f'(exit status {r.returncode})\n')
    except subprocess.TimeoutExpired:
        text = '(no answer in 30s)\n'
    with open(f'{d}/ag.out', 'w') as f:
        f.write(text)
    buf = io.StringIO()  # run here: a new python would import torch again
    with contextlib.redirect_stdout(buf):
        try:
            exec(py_text(prog, caps, show), {})
        except Exception as e:
            print(f'{type(e).__name__}: {e}')
    with open(f'{d}/torch.out', 'w') as f:
        f.write(buf.getvalue())
    with open(f'{d}/exact.txt', 'w') as f:
        f.write(f'{count} generated program(s) disagreed this way; the first was seed {seed}\n\n')
        f.write(exact_table(tres, ares, mm))


def tally_table(title, tallies, width=34):
    lines = [f'{title:<{width}} {"programs":>8} {"exact":>7} {"within tol.":>11}']
    for name, (n, ex, tol) in sorted(tallies.items(), key=lambda kv: (kv[1][2] / kv[1][0], kv[0])):
        mark = '' if tol == n else '  <-'
        lines.append(f'{name:<{width}} {n:>8} {ex:>7} {tol:>11}{mark}')
    return '\n'.join(lines)


# ---- main ----------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--ag', default='./ag')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=1000)
    ap.add_argument('--out', default='build/difftest')
    ap.add_argument('--shrink', type=int, default=40, help='most disagreements to shrink')
    ap.add_argument('--budget', type=int, default=3000, help='candidate programs per shrink')
    ap.add_argument('--tolerated', action='store_true', help='also shrink tolerated differences')
    ap.add_argument('--quiet', action='store_true', help='no progress line')
    ap.add_argument('--dtypes', type=float, default=0.3,
                    help='share of programs from dtypes.py (Python: dtypes, in-place)')
    ap.add_argument('--gradgrad', type=float, default=0.1,
                    help='share of programs from gradgrad.py (Python: gradients of gradients, hooks)')
    a = ap.parse_args()
    ag = os.path.abspath(a.ag)
    t0 = time.time()
    caps, rows, notes = probe(ag)
    print(f'ag: {a.ag}; features: {" ".join(sorted(c for c in caps if ":" not in c))}; '
          f'{sum(c.startswith("method:") for c in caps)} builtins are methods')
    print(f'ops: {len(rows)} of {len(ops.OPS)} rows accepted by this ag '
          f'({len([r for r in ops.OPS if r.needs <= caps])} have its features)')
    for n in notes:
        print('  probe note:', n)
    gg_ops = set()
    if a.gradgrad > 0:
        gg_ops, refused = gradgrad.probe(ag)
        print(f'gradgrad: {len(gg_ops)} ops differentiated twice by this ag'
              + (f'; refused: {" ".join(refused)}' if refused else ''))

    results = []   # (seed, prog, tres, ares, mismatches)
    for start in range(0, a.count, BATCH):
        seeds = [a.seed * 1_000_003 + k for k in range(start, min(start + BATCH, a.count))]
        kinds = [program_kind(s, a.dtypes, a.gradgrad) for s in seeds]
        progs = [dtypes.generate(s) if k == 'dtypes' else gradgrad.generate(s, gg_ops)
                 if k == 'gradgrad' else generate(s, rows, caps) for s, k in zip(seeds, kinds)]
        for s, p, (t, r, mm) in zip(seeds, progs, run_any(ag, progs, caps)):
            results.append((s, p, t, r, mm))
        if not a.quiet and sys.stderr.isatty():
            print(f'\r{len(results)} programs, {time.time() - t0:.0f}s', end='', file=sys.stderr)
    if not a.quiet and sys.stderr.isatty():
        print(file=sys.stderr)

    # agreement and tallies
    exact = sum(not mm for *_, mm in results)
    tol = sum(all(m.kind in TOLERATED for m in mm) for *_, mm in results)
    per_op, per_feature, kinds = {}, {}, {}
    for s, p, t, r, mm in results:
        ok_exact, ok_tol = not mm, all(m.kind in TOLERATED for m in mm)
        for table, names in ((per_op, used(p)), (per_feature, feats(p) | {'(all)'})):
            for n in names:
                c = table.setdefault(n, [0, 0, 0])
                c[0] += 1
                c[1] += ok_exact
                c[2] += ok_tol
        if mm:
            kinds[category(mm)] = kinds.get(category(mm), 0) + 1

    # shrink the distinct disagreements
    out = os.path.join(a.out, 'failures')
    shutil.rmtree(out, ignore_errors=True)
    found = []  # [category, ops, minimal prog, tres, ares, mm, count, seed]
    budget_left = a.shrink
    for s, p, t, r, mm in results:
        cat = category(mm)
        if cat is None or (cat in TOLERATED and not a.tolerated):
            continue
        mine = set(used(p))  # one with every op of a found one: counted with it
        known = [f for f in found if f[0] == cat and set(f[1]) <= mine]
        if known:
            known[0][6] += 1
            continue
        if budget_left <= 0 or any('hang' in m.detail for m in mm):  # a hang: too slow to shrink
            found.append([cat, used(p), p, t, r, mm, 1, s])
            continue
        budget_left -= 1
        small = shrink(ag, p, caps, mm, a.budget)
        (st, sr, smm), = run_any(ag, [small], caps)
        if category(smm) != cat:  # should not happen; keep the original
            small, st, sr, smm = p, t, r, mm
        dup = [f for f in found if f[0] == cat and f[1] == used(small)]
        if dup:
            dup[0][6] += 1
            continue
        found.append([cat, used(small), small, st, sr, smm, 1, s])
        if not a.quiet and sys.stderr.isatty():
            print(f'\rshrunk {len(found)} disagreements, {time.time() - t0:.0f}s', end='',
                  file=sys.stderr)
    if not a.quiet and sys.stderr.isatty():
        print(file=sys.stderr)
    found.sort(key=lambda f: (compare.SEVERITY.index(f[0]), f[1]))
    for k, (cat, names, prog, t, r, mm, count, seed) in enumerate(found, 1):
        d = os.path.join(out, f'{k:03d}-{cat}-{"-".join(names)[:60]}')
        d = re.sub(r'[^\w.=+-]', '_', d[len(out):]).lstrip('_')
        d = os.path.join(out, d)
        write_failure(ag, d, prog, caps, t, r, mm, count, seed)

    # the report
    n = len(results)
    print()
    print(tally_table('op', per_op))
    print()
    print(tally_table('feature', per_feature))
    print()
    if kinds:
        print('disagreements by kind: ' + ', '.join(
            f'{k} {v}' for k, v in sorted(kinds.items(), key=lambda kv: compare.SEVERITY.index(kv[0]))))
    print(f'{len(found)} distinct disagreement(s) beyond the tolerance, minimal programs in {out}/:')
    for k, (cat, names, prog, t, r, mm, count, seed) in enumerate(found, 1):
        first = next(m for m in mm if m.kind == cat)
        print(f'  {k:03d} {cat} ({count} program(s)): {describe(first.key)} {first.detail}')
        for line in stmt_lines(prog, caps):
            print('        ' + line)
    print(f'seed {a.seed}, {n} programs, {time.time() - t0:.0f}s')
    print(f'{exact} of {n} programs agree exactly')
    print(f'{tol} of {n} programs agree within the tolerance ({compare.ULP_TOL} ulps, the sign of zero)')
    return 0 if tol == n else 1


if __name__ == '__main__':
    sys.exit(main())
