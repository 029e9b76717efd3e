"""The SVG pictures tests/shell/kernel_svg.sh expects, from the layout that
repl/svg.c documents, computed here apart from ag (CPython's arithmetic and
formatting): a 640 x 400 picture; the plotting area from x 70 to 620 and
from y 20 to 360 (330 with a legend); grid lines at the multiples of a round
step (1, 2 or 5 times a power of ten) of about a fifth of each range; labels
in %.4g; coordinates in %.2f.

Regenerate: python3 tests/shell/kernel_svg_expected.py > tests/shell/kernel_svg.out
"""
import math

W, H, LEFT, RIGHT, TOP = 640, 400, 70, 20, 20
BLUE, RED = "#1f77b4", "#d62728"


def step_of(lo, hi):
    raw = (hi - lo) / 5
    mag = 10 ** math.floor(math.log10(raw))
    f = raw / mag
    return (1 if f < 1.5 else 2 if f < 3.5 else 5 if f < 7.5 else 10) * mag


def ticks(lo, hi):
    step = step_of(lo, hi)
    k, out = math.ceil(lo / step), []
    while k * step <= hi + step * 1e-9:
        v = k * step
        out.append(0.0 if abs(v) < step * 1e-9 else v)
        k += 1
    return out


def chart(series, x0, x1, y0, y1, legend=None):
    bottom = H - 40 - (30 if legend else 0)
    px = lambda x: LEFT + (x - x0) / (x1 - x0) * (W - RIGHT - LEFT)
    py = lambda y: bottom - (y - y0) / (y1 - y0) * (bottom - TOP)
    xs, ys = ticks(x0, x1), ticks(y0, y1)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="640" height="400" viewBox="0 0 640 400" '
           'font-family="sans-serif" font-size="12">',
           '<rect width="640" height="400" fill="white"/>',
           '<g stroke="#e0e0e0" stroke-width="1">']
    out += ['<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f"/>' % (px(x), TOP, px(x), bottom) for x in xs]
    out += ['<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f"/>' % (LEFT, py(y), W - RIGHT, py(y)) for y in ys]
    out += ['</g>', '<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="none" stroke="#333333"/>'
            % (LEFT, TOP, W - RIGHT - LEFT, bottom - TOP), '<g fill="#333333">']
    out += ['<text x="%.2f" y="%.2f" text-anchor="middle">%.4g</text>' % (px(x), bottom + 18, x) for x in xs]
    out += ['<text x="%.2f" y="%.2f" text-anchor="end">%.4g</text>' % (LEFT - 6, py(y) + 4, y) for y in ys]
    out.append('</g>')
    for (x, y), colour in zip(series, (BLUE, RED)):
        runs, run = [], []
        for a, b in zip(x, y):
            if math.isfinite(a) and math.isfinite(b):
                run.append((a, b))
            elif run:
                runs.append(run); run = []
        if run:
            runs.append(run)
        for run in runs:
            if len(run) == 1:
                out.append('<circle cx="%.2f" cy="%.2f" r="2" fill="%s"/>' % (px(run[0][0]), py(run[0][1]), colour))
            else:
                out.append('<polyline fill="none" stroke="%s" stroke-width="1.5" stroke-linejoin="round" '
                           'points="%s"/>' % (colour, " ".join("%.2f,%.2f" % (px(a), py(b)) for a, b in run)))
    for i, name in enumerate(legend or []):
        x, y = LEFT + 200 * i, H - 15
        out.append('<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="%s" stroke-width="3"/>'
                   % (x, y, x + 20, y, (BLUE, RED)[i]))
        out.append('<text x="%.2f" y="%.2f" fill="#333333">%s</text>' % (x + 26, y + 4, name))
    out.append('</svg>')
    return "\n".join(out) + "\n"


nan, inf = float("nan"), float("inf")
print("--- plot(tensor([0., 1., 4.]))")
print(chart([([0, 1, 2], [0, 1, 4])], 0, 2, 0, 4), end="")
print("--- a gap at nan and inf; a point alone is a dot")
print(chart([([0, 1, 2, 3, 4], [1, nan, 2, 3, inf])], 0, 4, 1, 3), end="")
print("--- a flat line: the y range is widened by half the value each way")
print(chart([([0, 1], [2, 2])], 0, 1, 1, 3), end="")
print("--- plot(x, y) of -0.25 .. 0.5: ticks at round values inside the range")
print(chart([([-0.25, 0.5], [0.001, 0.0035])], -0.25, 0.5, 0.001, 0.0035), end="")
print("--- plot(relu, -1, 1): 201 samples, the derivative by backward, a legend")
xs = [-1 + 2 * (k / 200) for k in range(201)]
print(chart([(xs, [max(x, 0.0) for x in xs]), (xs, [1.0 if x > 0 else 0.0 for x in xs])],
            -1, 1, 0, 1, legend=["relu(x)", "relu'(x), by backward"]), end="")
