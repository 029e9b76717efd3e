/*
 * reduce.c — sum, mean and max, over everything (a 0-d result) or over one
 * axis (removed from the shape, PyTorch's keepdim=False).
 *
 * An axis reduction views x as (outer, n, inner): out is (outer, inner).
 * Backward spreads g back over n in x's own shape, so it is already in the
 * input's shape: nothing for ag_accumulate_grad to reduce.
 */
#include "../internal.h"

#include <math.h>
#include <string.h>

typedef struct {
    int axis;             /* normalised; -1 for a reduction over everything */
} AxisCtx;

typedef struct {
    int64_t outer, n, inner;
} AxisView;

static AxisView axis_view(const Tensor *x, int axis) {
    AxisView v = {ag_shape_prod(x->shape, 0, axis), x->shape[axis],
                  ag_shape_prod(x->shape, axis + 1, x->ndim)};
    return v;
}

/* x's shape without the axis. */
static Tensor *reduced_out(const Tensor *x, int axis) {
    int64_t shape[AG_MAX_DIMS];
    int ndim = 0;
    for (int i = 0; i < x->ndim; i++)
        if (i != axis) shape[ndim++] = x->shape[i];
    return ag_tensor_new(ndim, shape);
}

/* Checks x and the axis; returns the normalised axis or -1 with a message.
 * A 0-d tensor takes axis 0 or -1 (as PyTorch): *whole is then set and the
 * reduction is over everything. */
static int reduce_axis(const char *op, const Tensor *x, int axis, bool *whole) {
    *whole = false;
    if (!x) return ag_fail("%s: argument is NULL", op), -1;
    if (x->ndim == 0 && (axis == 0 || axis == -1)) {
        *whole = true;
        return 0;
    }
    return ag_normalize_axis(op, axis, x->ndim);
}

/* dx[o, k, i] = scale * g[o, i]: g spread back over the reduced axis. */
static Tensor *spread_back(const Tensor *x, int axis, const Tensor *g, double scale) {
    Tensor *dx = ag_tensor_new_like(x);
    if (!dx || dx->numel == 0) return dx; /* no work, however many empty lanes */
    AxisView v = axis < 0 ? (AxisView){1, x->numel, 1} : axis_view(x, axis);
    if (v.inner == 1) { /* each g value fills a contiguous run */
        for (int64_t o = 0; o < v.outer; o++) {
            double value = scale * g->data[o], *dst = dx->data + o * v.n;
            for (int64_t k = 0; k < v.n; k++) dst[k] = value;
        }
        return dx;
    }
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t k = 0; k < v.n; k++) {
            double *dst = dx->data + (o * v.n + k) * v.inner;
            const double *src = g->data + o * v.inner;
            for (int64_t i = 0; i < v.inner; i++) dst[i] = scale * src[i];
        }
    return dx;
}

/* out[o, i] = sum over k of x[o, k, i]. */
/* The sum of n contiguous values: in blocks of 128 summed 8 lanes wide, the
 * block sums then added in order. Faster than one running sum, and more
 * exact (cascade summation, as PyTorch does). */
static double sum_contiguous(const double *x, int64_t n) {
    double total = 0.0;
    for (int64_t start = 0; start < n; start += 128) {
        int64_t end = start + 128 < n ? start + 128 : n;
        double block = 0.0;
        SIMD_SUM(block)
        for (int64_t i = start; i < end; i++) block += x[i];
        total += block;
    }
    return total;
}

static void sum_rows(const Tensor *x, AxisView v, double *out) {
    if (v.outer == 0 || v.inner == 0) return; /* no output */
    if (v.n == 0) {                           /* sums of nothing */
        memset(out, 0, (size_t)(v.outer * v.inner) * sizeof *out);
        return;
    }
    if (v.inner == 1) {
        for (int64_t o = 0; o < v.outer; o++) out[o] = sum_contiguous(x->data + o * v.n, v.n);
        return;
    }
    memset(out, 0, (size_t)(v.outer * v.inner) * sizeof *out);
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t k = 0; k < v.n; k++) {
            const double *src = x->data + (o * v.n + k) * v.inner;
            double *dst = out + o * v.inner;
            for (int64_t i = 0; i < v.inner; i++) dst[i] += src[i];
        }
}

/* ======================================================================
 * sum: out = sum of x (over the axis); dx = g spread over it
 * ====================================================================== */

OP_DOC(sum, "grad_x = g, copied to every summed element");

static void sum_backward(Function *self, void *ctx, Tensor *g) {
    AxisCtx *c = ctx;
    ag_accumulate_grad(self->inputs[0], spread_back(self->inputs[0], c->axis, g, 1.0));
}

/* Sum (scaled by 1/n when mean) over axis, or everything when axis < 0. */
static Tensor *sum_forward(Tensor *x, int axis, bool mean, ApplyFn backward_fn,
                           const char *name) {
    Tensor *out = axis < 0 ? ag_tensor_new(0, NULL) : reduced_out(x, axis);
    if (!out) return NULL;
    AxisView v = axis < 0 ? (AxisView){1, x->numel, 1} : axis_view(x, axis);
    sum_rows(x, v, out->data);
    if (mean)
        for (int64_t i = 0; i < out->numel; i++) out->data[i] /= (double)v.n;
    AxisCtx *c;
    out = ag_graph_record(out, backward_fn, name, &x, 1, (void **)&c, sizeof *c);
    if (c) c->axis = axis;
    return out;
}

Tensor *tensor_sum(Tensor *x) {
    if (!x) return ag_fail("sum: argument is NULL");
    return sum_forward(x, -1, false, sum_backward, "SumBackward");
}

Tensor *tensor_sum_axis(Tensor *x, int axis) {
    bool whole;
    axis = reduce_axis("sum", x, axis, &whole);
    return axis < 0 ? NULL : sum_forward(x, whole ? -1 : axis, false, sum_backward, "SumBackward");
}

/* ======================================================================
 * mean: out = sum / n; dx = g / n spread over the axis
 * (the mean of no elements is nan, as in PyTorch)
 * ====================================================================== */

OP_DOC(mean, "grad_x = g / n to each of the n averaged elements");

static void mean_backward(Function *self, void *ctx, Tensor *g) {
    AxisCtx *c = ctx;
    Tensor *x = self->inputs[0];
    double n = c->axis < 0 ? (double)x->numel : (double)x->shape[c->axis];
    ag_accumulate_grad(x, spread_back(x, c->axis, g, 1.0 / n));
}

Tensor *tensor_mean(Tensor *x) {
    if (!x) return ag_fail("mean: argument is NULL");
    return sum_forward(x, -1, true, mean_backward, "MeanBackward");
}

Tensor *tensor_mean_axis(Tensor *x, int axis) {
    bool whole;
    axis = reduce_axis("mean", x, axis, &whole);
    return axis < 0 ? NULL : sum_forward(x, whole ? -1 : axis, true, mean_backward, "MeanBackward");
}

/* ======================================================================
 * max: out = the largest value (a NaN wins, as in PyTorch);
 * dx = g at the first maximal element, 0 elsewhere. ctx keeps, for each
 * output element, the index k of its maximum along the axis.
 * ====================================================================== */

typedef struct {
    int axis;
    int64_t argmax[]; /* one per output element */
} MaxCtx;

OP_DOC(max, "grad_x = g at the first maximal element, 0 elsewhere");

static void max_backward(Function *self, void *ctx, Tensor *g) {
    MaxCtx *c = ctx;
    Tensor *x = self->inputs[0];
    AxisView v = c->axis < 0 ? (AxisView){1, x->numel, 1} : axis_view(x, c->axis);
    Tensor *dx = ag_tensor_filled_like(x, 0.0);
    if (!dx) return;
    if (g->numel > 0) /* else no lanes to visit, however many are empty */
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t i = 0; i < v.inner; i++) {
            int64_t j = o * v.inner + i;
            dx->data[(o * v.n + c->argmax[j]) * v.inner + i] = g->data[j];
        }
    ag_accumulate_grad(x, dx);
}

/* Index k of the maximum of x[o, :, i]: the first one, or the first NaN. */
static int64_t argmax_along(const Tensor *x, AxisView v, int64_t o, int64_t i) {
    const double *p = x->data + o * v.n * v.inner + i;
    int64_t best = 0;
    for (int64_t k = 1; k < v.n; k++) {
        double cur = p[k * v.inner], top = p[best * v.inner];
        if (top != top) break;
        if (cur > top || cur != cur) best = k;
    }
    return best;
}

static Tensor *max_forward(Tensor *x, int axis) {
    AxisView v = axis < 0 ? (AxisView){1, x->numel, 1} : axis_view(x, axis);
    if (v.n == 0) return ag_fail("max: cannot take the maximum of an empty dimension");
    Tensor *out = axis < 0 ? ag_tensor_new(0, NULL) : reduced_out(x, axis);
    if (!out) return NULL;
    MaxCtx *c;
    out = ag_graph_record(out, max_backward, "MaxBackward", &x, 1, (void **)&c,
                       sizeof *c + (size_t)out->numel * sizeof(int64_t));
    if (!out) return NULL;
    if (out->numel > 0) /* else no lanes to visit, however many are empty */
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t i = 0; i < v.inner; i++) {
            int64_t k = argmax_along(x, v, o, i);
            out->data[o * v.inner + i] = x->data[(o * v.n + k) * v.inner + i];
            if (c) c->argmax[o * v.inner + i] = k;
        }
    if (c) c->axis = axis;
    return out;
}

Tensor *tensor_max(Tensor *x) {
    if (!x) return ag_fail("max: argument is NULL");
    return max_forward(x, -1);
}

Tensor *tensor_max_axis(Tensor *x, int axis) {
    bool whole;
    axis = reduce_axis("max", x, axis, &whole);
    return axis < 0 ? NULL : max_forward(x, whole ? -1 : axis);
}
