/*
 * plot.c — line charts in the terminal: plot(y), plot(x, y), and
 * plot(f, a, b), which draws f over [a, b] and its derivative, computed by
 * ag's own backward at every sample.
 *
 * A chart is a grid of cells with the y range on the left and the x range
 * below. At a terminal each cell is a Unicode braille character (2 x 4
 * dots: four times the resolution) and the series are coloured; elsewhere
 * (a pipe, a file, or ascii=True) each cell is one ASCII character, '*'
 * for the first series and '+' for the second, so the output can be pinned
 * by tests. Consecutive points are joined by straight lines; inf and nan
 * points are left out, breaking the line. In a notebook (ag --kernel) the
 * chart is an SVG picture instead (svg.c), unless ascii= is given.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "builtins.h"
#include "interrupt.h"
#include "svg.h"

enum {
    LABEL_WIDTH = 10,  /* the y labels' column, before " |" */
    MIN_COLS = 20, MAX_COLS = 400,
    DEFAULT_WIDTH = 72, DEFAULT_HEIGHT = 16,
    MAX_SERIES = 2,
    SVG_SAMPLES = 201, /* plot(f, a, b)'s points in a picture */
};

typedef SvgSeries Series; /* x, y, n, and a name for the legend (or NULL) */

typedef struct {
    int cols, rows;       /* cells */
    int sub_x, sub_y;     /* dots per cell: 2 x 4 (braille) or 1 x 1 (ASCII) */
    bool braille, color;
    unsigned char *dots;  /* (cols * sub_x) x (rows * sub_y), the series' number + 1 */
    double x0, x1, y0, y1; /* the ranges drawn */
} Canvas;

/* ======================================================================
 * Ranges and drawing
 * ====================================================================== */

/* The finite range of n values; false when there is none. */
static bool finite_range(const double *v, int64_t n, double *lo, double *hi) {
    bool any = false;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) continue;
        if (!any || v[i] < *lo) *lo = v[i];
        if (!any || v[i] > *hi) *hi = v[i];
        any = true;
    }
    return any;
}

/* A range that is not a point: a flat line sits in the middle (near
 * DBL_MAX the padding shrinks to what is left, so the range stays finite;
 * at DBL_MAX itself the line is drawn at the edge). */
static void widen(double *lo, double *hi) {
    if (*hi > *lo) return;
    double pad = *lo == 0 ? 1 : fabs(*lo) * 0.5, room = DBL_MAX - fabs(*lo);
    if (room > 0 && pad > room) pad = room;
    *lo = fmax(*lo - pad, -DBL_MAX);
    *hi = fmin(*hi + pad, DBL_MAX);
}

/* The point a fraction t of the way from lo to hi, in halves when the
 * range is wider than DBL_MAX. */
static double between(double lo, double hi, double t) {
    if (isfinite(hi - lo)) return lo + (hi - lo) * t;
    return 2 * (lo / 2 + (hi / 2 - lo / 2) * t);
}

static int dot_cols(const Canvas *c) { return c->cols * c->sub_x; }
static int dot_rows(const Canvas *c) { return c->rows * c->sub_y; }

static void set_dot(Canvas *c, int x, int y, int series) {
    if (x >= 0 && x < dot_cols(c) && y >= 0 && y < dot_rows(c))
        c->dots[(size_t)y * (size_t)dot_cols(c) + (size_t)x] = (unsigned char)(series + 1);
}

/* The dot a point falls on (row 0 at the top). */
static void to_dot(const Canvas *c, double x, double y, int *dx, int *dy) {
    double fx = svg_fraction(x, c->x0, c->x1), fy = svg_fraction(y, c->y0, c->y1);
    *dx = (int)lround(fx * (dot_cols(c) - 1));
    *dy = dot_rows(c) - 1 - (int)lround(fy * (dot_rows(c) - 1));
}

/* A straight line of dots between two points (Bresenham). */
static void draw_line(Canvas *c, int x0, int y0, int x1, int y1, int series) {
    int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
        set_dot(c, x0, y0, series);
        if (x0 == x1 && y0 == y1) return;
        int e2 = 2 * err;
        if (e2 >= dy) err += dy, x0 += sx;
        if (e2 <= dx) err += dx, y0 += sy;
    }
}

static void draw_series(Canvas *c, const Series *s, int number) {
    bool have_previous = false;
    int px = 0, py = 0;
    for (int64_t i = 0; i < s->n; i++) {
        if (!isfinite(s->x[i]) || !isfinite(s->y[i])) {
            have_previous = false;
            continue;
        }
        int x, y;
        to_dot(c, s->x[i], s->y[i], &x, &y);
        if (have_previous) draw_line(c, px, py, x, y, number);
        else set_dot(c, x, y, number);
        px = x, py = y, have_previous = true;
    }
}

/* ======================================================================
 * Output
 * ====================================================================== */

/* The character (UTF-8 for braille) and series of one cell. */
static void cell_text(const Canvas *c, int col, int row, char *buf, int *series) {
    static const int braille_bit[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
    int bits = 0;
    *series = 0;
    for (int y = 0; y < c->sub_y; y++)
        for (int x = 0; x < c->sub_x; x++) {
            int v = c->dots[(size_t)(row * c->sub_y + y) * (size_t)dot_cols(c) + (size_t)(col * c->sub_x + x)];
            if (!v) continue;
            if (v > *series) *series = v;
            bits |= c->braille ? braille_bit[y][x] : 1;
        }
    if (!c->braille) {
        snprintf(buf, 8, "%c", *series == 0 ? ' ' : *series == 1 ? '*' : '+');
        return;
    }
    int cp = 0x2800 + bits; /* three UTF-8 bytes */
    buf[0] = (char)(0xE0 | (cp >> 12));
    buf[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    buf[2] = (char)(0x80 | (cp & 0x3F));
    buf[3] = '\0';
}

static const char *series_color(int series) { return series == 1 ? "\033[34m" : "\033[31m"; }

/* v in 4 significant digits, or fewer when that is wider than the label
 * column (-1.798e+308 is 11 characters). */
static void label_str(char *buf, size_t size, double v) {
    for (int digits = 4; digits >= 1; digits--)
        if (snprintf(buf, size, "%.*g", digits, v) <= LABEL_WIDTH) return;
}

static void print_row(FILE *out, const Canvas *c, int row) {
    char label[32] = "";
    if (row == 0) label_str(label, sizeof label, c->y1);
    else if (row == c->rows - 1) label_str(label, sizeof label, c->y0);
    fprintf(out, "%*s |", LABEL_WIDTH, label);
    char cell[8];
    int series, end = c->cols; /* blank cells at the end are left out: no trailing spaces */
    while (end > 0 && (cell_text(c, end - 1, row, cell, &series), series == 0)) end--;
    int shown = 0;
    for (int col = 0; col < end; col++) {
        cell_text(c, col, row, cell, &series);
        if (c->color && series != shown) fputs(series ? series_color(series) : "\033[0m", out);
        shown = series;
        fputs(cell, out);
    }
    if (c->color && shown) fputs("\033[0m", out);
    fputc('\n', out);
}

static void print_axis(FILE *out, const Canvas *c, const Series *series, int count) {
    fprintf(out, "%*s +", LABEL_WIDTH, "");
    for (int col = 0; col < c->cols; col++) fputc('-', out);
    char lo[32], hi[32];
    snprintf(lo, sizeof lo, "%.4g", c->x0);
    snprintf(hi, sizeof hi, "%.4g", c->x1);
    int gap = c->cols - (int)strlen(lo) - (int)strlen(hi);
    fprintf(out, "\n%*s  %s%*s%s\n", LABEL_WIDTH, "", lo, gap > 1 ? gap : 1, "", hi);
    if (!series[0].name) return;
    fprintf(out, "%*s  ", LABEL_WIDTH, "");
    for (int i = 0; i < count; i++) {
        const char *mark = c->braille ? "\xe2\xa3\xbf" : i == 0 ? "*" : "+";
        if (i) fputs("   ", out);
        if (c->color) fprintf(out, "%s%s\033[0m %s", series_color(i + 1), mark, series[i].name);
        else fprintf(out, "%s %s", mark, series[i].name);
    }
    fputc('\n', out);
}

/* The width of the terminal stdout writes to, or 0. */
static int terminal_columns(FILE *out) {
    struct winsize ws;
    if (!isatty(fileno(out)) || ioctl(fileno(out), TIOCGWINSZ, &ws) != 0) return 0;
    return ws.ws_col;
}

/* The ranges that hold every finite point of the series, widened where
 * they are a point; false (the error set) when there is no finite point. */
static bool chart_ranges(Session *s, const CallArgs *a, const Series *series, int count,
                         Canvas *c) {
    bool any_x = false, any_y = false;
    for (int i = 0; i < count; i++) {
        double lo = 0, hi = 0;
        if (finite_range(series[i].x, series[i].n, &lo, &hi)) {
            c->x0 = any_x ? fmin(c->x0, lo) : lo, c->x1 = any_x ? fmax(c->x1, hi) : hi, any_x = true;
        }
        if (finite_range(series[i].y, series[i].n, &lo, &hi)) {
            c->y0 = any_y ? fmin(c->y0, lo) : lo, c->y1 = any_y ? fmax(c->y1, hi) : hi, any_y = true;
        }
    }
    if (!any_x || !any_y)
        return session_fail(s, a->line, a->col, "plot: no finite points to draw");
    widen(&c->x0, &c->x1);
    widen(&c->y0, &c->y1);
    return true;
}

/* The chart as an SVG picture, shown in the notebook. */
static bool render_svg(Session *s, const CallArgs *a, const Series *series, int count) {
    Canvas c = {0};
    if (!chart_ranges(s, a, series, count, &c)) return false;
    StrBuf svg;
    strbuf_init(&svg);
    svg_chart(&svg, series, count, c.x0, c.x1, c.y0, c.y1);
    bool ok = !svg.oom;
    if (ok) session_display(s, "image/svg+xml", svg.data, svg.len);
    strbuf_free(&svg);
    return ok || session_fail(s, a->line, a->col, "out of memory");
}

/* Draws the series (count of them) on one chart: an SVG picture in a
 * notebook (svg), text elsewhere. */
static bool render(Session *s, const CallArgs *a, const Series *series, int count, bool ascii,
                   bool svg, int width, int height) {
    if (svg) return render_svg(s, a, series, count);
    Canvas c = {.cols = width - LABEL_WIDTH - 2, .rows = height, .braille = !ascii};
    c.sub_x = c.braille ? 2 : 1;
    c.sub_y = c.braille ? 4 : 1;
    const char *term = getenv("TERM");
    c.color = c.braille && count > 1 && !(term && strcmp(term, "dumb") == 0);
    if (!chart_ranges(s, a, series, count, &c)) return false;
    c.dots = calloc((size_t)dot_cols(&c) * (size_t)dot_rows(&c), 1);
    if (!c.dots) return session_fail(s, a->line, a->col, "out of memory");
    for (int i = 0; i < count; i++) draw_series(&c, &series[i], i);
    for (int row = 0; row < c.rows; row++) print_row(s->out, &c, row);
    print_axis(s->out, &c, series, count);
    free(c.dots);
    return true;
}

/* ======================================================================
 * plot(...)
 * ====================================================================== */

/* The values of a 1-D tensor (or a column), as doubles to draw. */
static bool plot_values(Session *s, CallArgs *a, int i, Tensor **t) {
    if (!arg_tensor(s, a, i, t)) return false;
    if ((*t)->numel == 0) return arg_error(s, a, i, "nothing to plot: it has no elements");
    bool column = (*t)->ndim == 2 && (*t)->shape[1] == 1;
    if ((*t)->ndim > 1 && !column) {
        char shape[AG_SHAPE_STR_MAX];
        return arg_error(s, a, i, "plot draws a 1-D tensor, not shape %s",
                         tensor_shape_str(*t, shape, sizeof shape));
    }
    return true;
}

/* f and its derivative at n points of [lo, hi], each by a forward and a
 * backward of its own, in a graph apart (as grad does). */
static bool sample_function(Session *s, CallArgs *a, double lo, double hi, int64_t n, double *x,
                            double *y, double *dy) {
    for (int64_t k = 0; k < n; k++) {
        if (session_interrupted) return session_fail(s, a->line, a->col, "interrupted");
        x[k] = n == 1 ? lo : between(lo, hi, (double)k / (double)(n - 1));
        if (ag_graph_push() != 0) return session_fail(s, a->line, a->col, "%s", ag_error());
        Tensor *leaf = tensor_create(0, NULL, &x[k], true);
        Value arg = value_tensor(leaf), v;
        s->isolated++;
        bool ok = leaf && a->func.invoke(s, &a->func, &arg, 1, &v), returned = ok;
        s->isolated--;
        Tensor *out = ok && v.kind == VAL_TENSOR ? v.as.tensor : NULL;
        if (ok && (!out || out->numel != 1))
            ok = session_fail(s, a->line, a->col, "plot: %.*s must return one number for one "
                              "number", (int)a->func.length, a->func.name);
        if (ok) y[k] = tensor_values(out)[0];
        if (ok && out->requires_grad && backward(out) != 0)
            ok = session_fail(s, a->line, a->col, "%s", ag_error());
        dy[k] = ok && leaf->grad ? tensor_values(leaf->grad)[0] : 0.0;
        if (returned) value_release(&v); /* whatever f returned, one number or not */
        value_release(&arg);
        ag_graph_pop();
        if (!ok) return false;
    }
    return true;
}

static bool plot_function(Session *s, CallArgs *a, bool ascii, bool svg, int width, int height) {
    double lo = 0, hi = 0;
    if (a->num_rest != 2)
        return session_fail(s, a->line, a->col, "plot(f, a, b) draws f over [a, b]: give a and b");
    if (!arg_number(s, a, REST(0), &lo) || !arg_number(s, a, REST(1), &hi)) return false;
    if (!(isfinite(lo) && isfinite(hi) && lo < hi))
        return arg_error(s, a, REST(1), "the interval must be finite with a < b");
    int64_t n = svg ? SVG_SAMPLES : (int64_t)(width - LABEL_WIDTH - 2) * (ascii ? 1 : 2);
    double *buf = malloc((size_t)n * 3 * sizeof *buf);
    if (!buf) return session_fail(s, a->line, a->col, "out of memory");
    double *x = buf, *y = buf + n, *dy = buf + 2 * n;
    char fname[64], dname[96];
    snprintf(fname, sizeof fname, "%.*s(x)", (int)(a->func.length > 40 ? 40 : a->func.length),
             a->func.name);
    snprintf(dname, sizeof dname, "%.*s'(x), by backward",
             (int)(a->func.length > 40 ? 40 : a->func.length), a->func.name);
    bool ok = sample_function(s, a, lo, hi, n, x, y, dy);
    Series series[2] = {{x, y, n, fname}, {x, dy, n, dname}};
    ok = ok && render(s, a, series, 2, ascii, svg, width, height);
    free(buf);
    return ok;
}

/* plot(y), plot(x, y), plot(f, a, b); ascii=True forces plain characters;
 * width and height in characters. */
static BUILTIN(bi_plot) {
    (void)out;
    /* a notebook shows a picture, unless ascii= asks for the text chart */
    bool ascii = !isatty(fileno(s->out)), forced, svg = s->display && !arg_present(a, 1);
    int64_t width = terminal_columns(s->out), height = DEFAULT_HEIGHT;
    if (arg_present(a, 1) && arg_bool(s, a, 1, &forced)) ascii = forced;
    else if (arg_present(a, 1)) return false;
    if (width < MIN_COLS + LABEL_WIDTH + 2) width = DEFAULT_WIDTH;
    if (width > MAX_COLS) width = MAX_COLS;
    if (arg_present(a, 2) && !arg_int(s, a, 2, "the width", MIN_COLS + LABEL_WIDTH + 2, MAX_COLS, &width))
        return false;
    if (arg_present(a, 3) && !arg_int(s, a, 3, "the height", 3, 200, &height)) return false;
    if (a->func.name) return plot_function(s, a, ascii, svg, (int)width, (int)height);
    if (a->num_rest < 1 || a->num_rest > 2)
        return session_fail(s, a->line, a->col, "plot takes y, or x and y, or a function and "
                            "an interval: %s", a->b->signature);
    Tensor *x = NULL, *y = NULL;
    if (!plot_values(s, a, REST(a->num_rest - 1), &y)) return false;
    if (a->num_rest == 2 && !plot_values(s, a, REST(0), &x)) return false;
    if (x && x->numel != y->numel)
        return arg_error(s, a, REST(1), "x has %lld values and y %lld: they must match",
                         (long long)x->numel, (long long)y->numel);
    double *index = x ? NULL : malloc((size_t)y->numel * sizeof *index);
    if (!x && !index) return session_fail(s, a->line, a->col, "out of memory");
    for (int64_t i = 0; !x && i < y->numel; i++) index[i] = (double)i;
    Series series = {x ? tensor_values(x) : index, tensor_values(y), y->numel, NULL};
    bool ok = render(s, a, &series, 1, ascii, svg, (int)width, (int)height);
    free(index);
    return ok;
}

/* ======================================================================
 * The rows of this file's builtins (builtins.c puts every file's in one
 * list, in :help's order)
 * ====================================================================== */

const Builtin plot_builtins[] = {
    {"plot", "plot(*args, ascii=None, width=None, height=None)", "a line chart: plot(y), "
     "plot(x, y), or plot(f, a, b) for f and its derivative (by backward) over [a, b]",
     "braille dots at a terminal, ASCII (* and +) elsewhere or with ascii=True; an SVG picture "
     "in a notebook",
     bi_plot, BI_VOID | BI_MAYBE_FUNCTION, VAL_VOID, NULL},
};
const int num_plot_builtins = sizeof plot_builtins / sizeof plot_builtins[0];
