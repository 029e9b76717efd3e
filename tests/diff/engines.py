"""engines.py -- running a program in PyTorch (in this process) and in ag
(many programs per ag process), and reading back exact values.

Both give a Result: the reported values by key (program.reports:
('value', name, i) or ('grad', leaf, i)), each (shape, [floats]) or None
for a gradient that is None; the statement that raised an error and its
message; for ag, a crash or a hang.

Exact values out of ag. ag prints 4 decimals, as PyTorch. So the script
also prints, for every reported tensor, _enc(t): an (n, 4) tensor of
integers below 2**21 (printed exactly in PyTorch's integer mode) from which
each element is rebuilt exactly: t = (hi*2**38 + mid*2**19 + lo) * 2**(e-54).
Its helpers use only operations that are exact in IEEE arithmetic (scaling
by powers of two, adding 1.5*2**52 to round to an integer, subtracting
values of the same binade); log only guesses the exponent, and a bad guess
costs nothing because the mantissa has room for two more bits either way.
Non-finite values and the sign of zero are read from the plain print. The
plain print is also checked against the decoded value (a decoding that
does not match what ag printed is reported as a harness error, never as a
disagreement).
"""
import math
import re
import subprocess
import warnings
from dataclasses import dataclass, field
from fractions import Fraction

import torch

import ops
from program import Assign, Backward, Call, Ref, flatten, namespace, render_expr, render_stmt, reports, walk

warnings.filterwarnings('ignore')
torch.set_num_threads(1)


@dataclass
class Result:
    items: dict = field(default_factory=dict)  # report key -> (shape, values) or None
    error: tuple = None    # (statement index, message)
    crash: str = None      # ag only: a crash or a hang, described
    stopped: bool = False  # ag only: stopped by reading a gradient that is None


# ---- PyTorch -------------------------------------------------------------------

def snapshot(t):
    if t is None:
        return None
    if not isinstance(t, torch.Tensor):
        t = torch.tensor(float(t))
    return tuple(t.shape), [float(v) for v in t.detach().reshape(-1).tolist()]


def pin(t, v):
    """Overwrites t's data with ag's values v. In place, under autograd's
    eyes: the copy an op saved for its backward (exp, tanh, sigmoid,
    softmax save their output) is this same storage, so backward too sees
    ag's values."""
    t.data.copy_(torch.tensor(v[1], dtype=torch.float64).reshape(v[0]))


def run_torch(prog, caps, pins=None, origin=None):
    """PyTorch's result. pins (name -> ag's (shape, values)): after each
    assignment to a pinned name, its value is replaced by ag's (the anchored
    replay); origin maps statement indices to the keys' indices."""
    res, ns = Result(), namespace()
    for i, st in enumerate(prog.stmts):
        j = origin[i] if origin else i
        try:
            exec(render_stmt(st, 'py', caps), ns)
        except Exception as e:
            msg = str(e).strip().splitlines()[0] if str(e).strip() else ''
            res.error = (j, f'{type(e).__name__}: {msg}')
            return res
        for key in reports(prog, i):  # before pinning: PyTorch's answer to ag's operands
            t = ns[key[1]]
            res.items[key[:2] + (j,)] = snapshot(t.grad if key[0] == 'grad' else t)
        if pins and isinstance(st, Assign) and pins.get(st.name):
            t, v = ns[st.name], pins[st.name]
            if isinstance(t, torch.Tensor) and t.dtype == torch.float64 and tuple(t.shape) == v[0]:
                pin(t, v)
    return res


def run_anchored(prog, caps, ares):
    """PyTorch's result when every value the program computes, nested
    calls included, is pinned to ag's: what PyTorch would say each op
    gives for ag's own operands. A difference that disappears here was
    inherited from an earlier op (a last-bit difference grown by
    cancellation), not made by the op that shows it."""
    flat, origin, temps = flatten(prog)
    pins = {k[1]: v for k, v in ares.items.items() if k[0] == 'value' and v is not None}
    return run_torch(flat, caps, pins, origin)


# ---- ag ------------------------------------------------------------------------

HELPERS = '''_r(v) = (v + 6755399441055744) - 6755399441055744
_e(x) = relu(_r(log(abs(x)) / 0.6931471805599453) - 1 + 1074) - 1074
_m(x) = x / pow(2, _e(x)) * 18014398509481984
_hi(m) = _r(m / 274877906944)
_rem(m) = m - _hi(m) * 274877906944
_mid(m) = _r(_rem(m) / 524288)
_lo(m) = _rem(m) - _mid(m) * 524288
_c(v) = reshape(v + 1048576, -1, 1)
_q(x) = _c(_e(x)) * [1, 0, 0, 0] + _c(_hi(_m(x))) * [0, 1, 0, 0] + _c(_mid(_m(x))) * [0, 0, 1, 0] + _c(_lo(_m(x))) * [0, 0, 0, 1]
_enc(x) = _q(tensor(x).double())'''.splitlines()

MARK = re.compile(r'^tensor\(-9(\d{7})\.\)$')
ERROR = re.compile(r'^<stdin>:(\d+):(\d+): error: (.*)$', re.M)
NUMBER = re.compile(r'nan|-?inf|True|False|-?\d+\.?\d*(?:e[+-]?\d+)?')


def ag_script(progs, caps, torch_results):
    """The script for a batch: each program after :reset, every report
    after a marker line `-9NNNNNNN` (printed tensor(-9NNNNNNN.)). Returns the
    text, what each line is (program, statement) and what each marker is."""
    lines, where, marks = [], [], []

    def emit(text, p, i, report=False):
        lines.append(text)
        where.append((p, i, report))

    def mark(p, key):
        emit(f'-{90000000 + len(marks)}', p, None)
        marks.append((p, key))

    for p, (prog, tres) in enumerate(zip(progs, torch_results)):
        emit(':reset', p, None)
        for h in HELPERS:
            emit(h, p, None)
        temps = flatten(prog)[2] if 'detach' in caps_rows(caps) else [[] for _ in prog.stmts]
        for i, st in enumerate(prog.stmts):
            if isinstance(st, Backward):
                mark(p, None)  # its own printing is not read
            emit(render_stmt(st, 'ag', caps), p, i)
            for name, sub in temps[i]:  # nested calls again, on detached operands
                text = render_expr(detached(sub), 'ag', caps)[0]
                mark(p, ('value', name, i))
                for line in (text, f'tensor({text}).shape', f'_enc({text})'):
                    emit(line, p, i, 'temp')
            for key in reports(prog, i):
                ref = key[1] + ('.grad' if key[0] == 'grad' else '')
                mark(p, key)
                tv = tres.items.get(key, ())
                emit(ref, p, i, True)
                if tv is not None:
                    emit(f'tensor({ref}).shape', p, i, True)
                if tv is not None and not (tv and 0 in tv[0]):
                    emit(f'_enc({ref})', p, i, True)
    return '\n'.join(lines) + '\n', where, marks


def caps_rows(caps):
    return {r.name for r in ops.OPS if r.needs <= caps}


def detached(e):
    """A copy of e reading every name through detach(): recomputing it
    records nothing."""
    import copy
    e = copy.deepcopy(e)
    wrap = lambda a: Call(ops.ROWS['detach'], [a]) if isinstance(a, Ref) else a
    for n in list(walk(e)):
        if isinstance(n, Call):
            n.args = [wrap(a) for a in n.args]
        elif hasattr(n, 'items'):
            n.items = [wrap(a) for a in n.items]
    return e


def parse_item(lines):
    """(shape, values) from the plain value, shape and _enc lines; None for
    a gradient printed as None; raises ValueError if incomplete."""
    chunks = []
    for line in lines:
        if (line.startswith(' ') or not line) and chunks:  # continued; 3-D blocks have blank lines
            chunks[-1] += ' ' + line.strip()
        else:
            chunks.append(line.strip())
    if chunks[:1] == ['None']:
        return None
    if len(chunks) not in (2, 3):
        raise ValueError('incomplete')
    if '...' in ' '.join(chunks):
        raise ValueError('printed summarised (more than 1000 numbers)')
    plain, shape = chunks[0], tuple(int(d) for d in re.findall(r'\d+', chunks[1]))
    if plain.startswith('tensor('):
        plain = re.split(r', (?:grad_fn|requires_grad|size|dtype)=', plain[7:])[0]
    tokens = NUMBER.findall(plain)
    n = math.prod(shape)
    if len(tokens) != n:
        raise ValueError(f'{len(tokens)} printed values for shape {shape}')
    codes = []
    if len(chunks) == 3:
        ints = [int(float(t)) if t not in ('nan', 'inf', '-inf') else None
                for t in NUMBER.findall(chunks[2][7:])]
        codes = [ints[k:k + 4] for k in range(0, len(ints), 4)]
    values = []
    for k, tok in enumerate(tokens):
        if tok in ('True', 'False'):
            values.append(1.0 if tok == 'True' else 0.0)
            continue
        if tok in ('nan', 'inf', '-inf') or float(tok) == 0:
            values.append(float(tok))
            continue
        shown = max(min(float(tok), 1.7976931348623157e308), -1.7976931348623157e308)
        if k >= len(codes) or None in codes[k]:
            raise ValueError('no exact value')
        e, hi, mid, lo = (c - 1048576 for c in codes[k])
        exact = float(Fraction(hi * 2**38 + mid * 2**19 + lo) * Fraction(2) ** (e - 54))
        if abs(exact - shown) > max(1e-4 * abs(shown), 0.6e-4):  # as printed: 4 decimals
            raise ValueError(f'decoded {exact!r} but ag printed {tok}')
        values.append(exact)
    return shape, values


def run_ag(ag, progs, caps, torch_results, timeout=60):
    """One Result per program; restarts after the program that stopped ag
    with an error, and runs programs one by one after a crash or a hang."""
    results = [Result() for _ in progs]
    start = 0
    while start < len(progs):
        text, where, marks = ag_script(progs[start:], caps, torch_results[start:])
        try:
            proc = subprocess.run([ag, '-'], input=text, capture_output=True, text=True,
                                  timeout=timeout + len(progs))
            out, err, rc = proc.stdout, proc.stderr, proc.returncode
        except subprocess.TimeoutExpired:
            out, err, rc = '', '', 'timeout'
        m = ERROR.search(err)
        if rc not in (0, 1) or (rc == 1 and not m):
            if len(progs) - start == 1:
                what = 'hang (no answer in %ds)' % timeout if rc == 'timeout' else \
                       f'exit status {rc}: ' + ' | '.join(err.strip().splitlines()[:3])
                results[start].crash = what
                return results
            for k in range(start, len(progs)):
                results[k] = run_ag(ag, [progs[k]], caps, [torch_results[k]], timeout=10)[0]
            return results
        current, buf = None, {}
        for line in out.splitlines():
            mk = MARK.match(line)
            if mk:
                current = int(mk.group(1))
                buf[current] = []
            elif current is not None:
                buf[current].append(line)
        for idx, lines in buf.items():
            p, key = marks[idx]
            if key is None:
                continue
            try:
                results[start + p].items[key] = parse_item(lines)
            except ValueError as e:
                if not m or idx != max(buf):  # only what the error cut short may be incomplete
                    what = key[1] + '.grad' * (key[0] == 'grad')
                    results[start + p].crash = f'harness: cannot read {what}: {e}'
        if not m:
            return results
        p, i, report = where[int(m.group(1)) - 1]
        res = results[start + p]
        if i is None or report == 'temp':
            res.crash = f'harness: error in a harness line: {m.group(3)}'
        elif report and buf and res.items.get(marks[max(buf)][1], ()) is None:
            res.stopped = True  # x.grad is None where PyTorch has one: compared as such
        else:
            res.error = (i, m.group(3))
        start += p + 1
    return results
