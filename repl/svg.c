/*
 * svg.c — line charts as SVG text (svg.h): plot(...) in a notebook.
 *
 * The picture is plain SVG 1.1 that any browser draws: a white background,
 * light grid lines at round values (1, 2 or 5 times a power of ten, about
 * five a side) with their labels, a frame, each series as polylines in the
 * terminal chart's colours (blue, then red), and a legend under the x
 * axis. A dense series is thinned to what a pixel column can show: its
 * first, lowest, highest and last points, in their order, so a million
 * points cost a few thousand and the shape stays.
 */
#include "svg.h"

#include <math.h>
#include <stdio.h>

enum {
    LEFT = 70, RIGHT = 20, TOP = 20,   /* margins round the plotting area */
    BOTTOM_AXIS = 40, BOTTOM_LEGEND = 30,
    MAX_TICKS = 12,
};

static const char *const colours[] = {"#1f77b4", "#d62728"};

typedef struct {
    double x0, x1, y0, y1;         /* the data ranges */
    double left, right, top, bottom; /* the plotting area, in pixels */
} Frame;

double svg_fraction(double v, double lo, double hi) {
    if (isfinite(hi - lo)) return (v - lo) / (hi - lo);
    return (v / 2 - lo / 2) / (hi / 2 - lo / 2);
}

static double pixel_x(const Frame *f, double x) {
    return f->left + svg_fraction(x, f->x0, f->x1) * (f->right - f->left);
}

static double pixel_y(const Frame *f, double y) {
    return f->bottom - svg_fraction(y, f->y0, f->y1) * (f->bottom - f->top);
}

/* Text for an attribute or element: & < > " escaped. */
static void append_text(StrBuf *out, const char *text) {
    for (const char *p = text; *p; p++) {
        switch (*p) {
        case '&': strbuf_append(out, "&amp;"); break;
        case '<': strbuf_append(out, "&lt;"); break;
        case '>': strbuf_append(out, "&gt;"); break;
        case '"': strbuf_append(out, "&quot;"); break;
        default: strbuf_appendn(out, p, 1);
        }
    }
}

/* ======================================================================
 * Axes
 * ====================================================================== */

/* A round step (1, 2 or 5 times a power of ten) giving about five ticks
 * over [lo, hi]; 0 when the span is not finite. */
static double tick_step(double lo, double hi) {
    double span = hi - lo;
    if (!isfinite(span) || span <= 0) return 0;
    double raw = span / 5, magnitude = pow(10, floor(log10(raw))), f = raw / magnitude;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * magnitude;
}

/* The ticks over [lo, hi]: the round values, or the two ends where there
 * is no round step. Returns how many. */
static int ticks(double lo, double hi, double *at) {
    double step = tick_step(lo, hi);
    if (step == 0 || !isfinite(lo / step)) {
        at[0] = lo, at[1] = hi;
        return 2;
    }
    int n = 0;
    for (double k = ceil(lo / step); n < MAX_TICKS && k * step <= hi + step * 1e-9; k++) {
        double v = k * step;
        at[n++] = fabs(v) < step * 1e-9 ? 0 : v; /* 0, not 1e-17 or -0 */
    }
    return n;
}

static void tick_label(char *buf, size_t size, double v) { snprintf(buf, size, "%.4g", v); }

static void draw_axes(StrBuf *out, const Frame *f) {
    double xs[MAX_TICKS], ys[MAX_TICKS];
    int nx = ticks(f->x0, f->x1, xs), ny = ticks(f->y0, f->y1, ys);
    char label[32];
    strbuf_append(out, "<g stroke=\"#e0e0e0\" stroke-width=\"1\">\n");
    for (int i = 0; i < nx; i++)
        strbuf_appendf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
                       pixel_x(f, xs[i]), f->top, pixel_x(f, xs[i]), f->bottom);
    for (int i = 0; i < ny; i++)
        strbuf_appendf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", f->left,
                       pixel_y(f, ys[i]), f->right, pixel_y(f, ys[i]));
    strbuf_appendf(out, "</g>\n<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                   "fill=\"none\" stroke=\"#333333\"/>\n<g fill=\"#333333\">\n",
                   f->left, f->top, f->right - f->left, f->bottom - f->top);
    for (int i = 0; i < nx; i++) {
        tick_label(label, sizeof label, xs[i]);
        strbuf_appendf(out, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s</text>\n",
                       pixel_x(f, xs[i]), f->bottom + 18, label);
    }
    for (int i = 0; i < ny; i++) {
        tick_label(label, sizeof label, ys[i]);
        strbuf_appendf(out, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n",
                       f->left - 6, pixel_y(f, ys[i]) + 4, label);
    }
    strbuf_append(out, "</g>\n");
}

/* ======================================================================
 * Series
 * ====================================================================== */

/* The points of one pixel column not yet written: its first, lowest,
 * highest and last (by index, so they go out in the order they came). */
typedef struct {
    long column;
    int64_t first, low, high, last; /* -1: none */
} Column;

static void add_point(StrBuf *out, const Frame *f, const SvgSeries *s, int64_t i, int *points) {
    strbuf_appendf(out, "%s%.2f,%.2f", *points ? " " : "", pixel_x(f, s->x[i]), pixel_y(f, s->y[i]));
    (*points)++;
}

static void flush_column(StrBuf *out, const Frame *f, const SvgSeries *s, Column *c, int *points) {
    if (c->first < 0) return;
    int64_t order[4] = {c->first, c->low < c->high ? c->low : c->high,
                        c->low < c->high ? c->high : c->low, c->last};
    for (int k = 0; k < 4; k++)
        if (k == 0 || order[k] != order[k - 1]) add_point(out, f, s, order[k], points);
    c->first = -1;
}

/* Starts a run of finite points (a polyline) at the text's end. */
static size_t open_run(StrBuf *out, int number) {
    size_t at = out->len;
    strbuf_appendf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
                   "stroke-linejoin=\"round\" points=\"", colours[number]);
    return at;
}

/* Ends a run: a single point becomes a dot (a polyline of one point draws
 * nothing), no point at all is taken back. */
static void close_run(StrBuf *out, const Frame *f, const SvgSeries *s, size_t at, int points,
                      int64_t last, int number) {
    if (points == 0) {
        out->len = at;
        out->data[at] = '\0';
    } else if (points == 1) {
        out->len = at;
        out->data[at] = '\0';
        strbuf_appendf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"2\" fill=\"%s\"/>\n",
                       pixel_x(f, s->x[last]), pixel_y(f, s->y[last]), colours[number]);
    } else {
        strbuf_append(out, "\"/>\n");
    }
}

static void draw_series(StrBuf *out, const Frame *f, const SvgSeries *s, int number) {
    Column c = {.first = -1};
    size_t at = 0;
    int points = 0;
    bool open = false;
    int64_t last = -1;
    for (int64_t i = 0; i <= s->n; i++) {
        bool finite = i < s->n && isfinite(s->x[i]) && isfinite(s->y[i]);
        if (!finite) { /* a gap (or the end): the run so far is one polyline */
            if (!open) continue;
            flush_column(out, f, s, &c, &points);
            close_run(out, f, s, at, points, last, number);
            open = false;
            continue;
        }
        if (!open) at = open_run(out, number), points = 0, open = true;
        long column = lround(pixel_x(f, s->x[i]));
        if (c.first >= 0 && column != c.column) flush_column(out, f, s, &c, &points);
        if (c.first < 0) c = (Column){column, i, i, i, i};
        if (s->y[i] < s->y[c.low]) c.low = i;
        if (s->y[i] > s->y[c.high]) c.high = i;
        c.last = last = i;
    }
}

static void draw_legend(StrBuf *out, const SvgSeries *series, int count) {
    double x = LEFT, y = SVG_HEIGHT - BOTTOM_LEGEND / 2.0;
    for (int i = 0; i < count && series[0].name; i++) {
        strbuf_appendf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
                       "stroke-width=\"3\"/>\n<text x=\"%.2f\" y=\"%.2f\" fill=\"#333333\">",
                       x, y, x + 20, y, colours[i], x + 26, y + 4);
        append_text(out, series[i].name ? series[i].name : "");
        strbuf_append(out, "</text>\n");
        x += 200;
    }
}

void svg_chart(StrBuf *out, const SvgSeries *series, int count, double x0, double x1, double y0,
               double y1) {
    bool legend = series[0].name != NULL;
    Frame f = {x0, x1, y0, y1, LEFT, SVG_WIDTH - RIGHT, TOP,
               SVG_HEIGHT - BOTTOM_AXIS - (legend ? BOTTOM_LEGEND : 0)};
    strbuf_appendf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                   "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
                   "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
                   SVG_WIDTH, SVG_HEIGHT, SVG_WIDTH, SVG_HEIGHT, SVG_WIDTH, SVG_HEIGHT);
    draw_axes(out, &f);
    for (int i = 0; i < count && i < (int)(sizeof colours / sizeof colours[0]); i++)
        draw_series(out, &f, &series[i], i);
    if (legend) draw_legend(out, series, count);
    strbuf_append(out, "</svg>\n");
}
