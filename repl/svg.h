/*
 * svg.h — line charts as SVG text, for plot(...) in a notebook (ag
 * --kernel shows them as image/svg+xml). The terminal's chart is plot.c's.
 *
 * It is: a fixed-size picture (SVG_WIDTH x SVG_HEIGHT) with a frame, grid
 * lines at round values, their labels, one polyline per series (broken at
 * inf and nan) and a legend. It is NOT: a plotting library (no styles, no
 * log axes, no markers).
 */
#ifndef AG_SVG_H
#define AG_SVG_H

#include <stdint.h>

#include "strbuf.h"

enum { SVG_WIDTH = 640, SVG_HEIGHT = 400 };

/* One line of a chart: n points (x[i], y[i]), and its name for the legend
 * (or NULL: no legend). */
typedef struct {
    const double *x, *y;
    int64_t n;
    const char *name;
} SvgSeries;

/* Where v lies in [lo, hi], from 0 to 1. A range wider than DBL_MAX
 * (-1e308 to 1e308) is measured in halves, which cannot overflow. */
double svg_fraction(double v, double lo, double hi);

/* Appends the SVG document of a chart of count series, drawn over x in
 * [x0, x1] and y in [y0, y1] (finite, x0 < x1, y0 < y1). */
void svg_chart(StrBuf *out, const SvgSeries *series, int count, double x0, double x1, double y0,
               double y1);

#endif
