/*
 * reduce.c — sum, mean and max, over everything (a 0-d result) or over one
 * axis (removed from the shape, PyTorch's keepdim=False).
 *
 * An axis reduction views x as (outer, n, inner): out is (outer, inner).
 * Backward spreads g back over n in x's own shape, so it is already in the
 * input's shape: nothing for ag_accumulate_grad to reduce. The sums are
 * pairwise (ag_sum, shared with nn.c), and no loop visits the lanes of a
 * tensor without elements (a (10^18, 0) tensor has 10^18 of them).
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

/* dx[o, k, i] = g[o, i] / n: g spread back over the reduced axis (n = 1
 * for sum; mean divides as PyTorch does: g * (1/n) differs in the last
 * bit). One division per g element, then copies. */
static Tensor *spread_back(const Tensor *x, int axis, const Tensor *g, double n) {
    Tensor *dx = ag_tensor_new_like(x);
    if (!dx || dx->numel == 0) return dx; /* no work, however many empty lanes */
    AxisView v = axis < 0 ? (AxisView){1, x->numel, 1} : axis_view(x, axis);
    for (int64_t o = 0; o < v.outer; o++) {
        double *first = dx->data + o * v.n * v.inner; /* k = 0 */
        const double *src = g->data + o * v.inner;
        if (v.inner == 1) { /* one value fills a contiguous run */
            double value = src[0] / n;
            for (int64_t k = 0; k < v.n; k++) first[k] = value;
            continue;
        }
        for (int64_t i = 0; i < v.inner; i++) first[i] = src[i] / n;
        for (int64_t k = 1; k < v.n; k++)
            memcpy(first + k * v.inner, first, (size_t)v.inner * sizeof *first);
    }
    return dx;
}

/* ======================================================================
 * Summation, pairwise: values in blocks summed directly, the block sums
 * combined in a balanced binary tree, so that the rounding error grows with
 * log(n), not n (a running sum of 10^7 x 0.1 is off by 1.4e-6, this by
 * 2.3e-10, PyTorch's cascade sum by 8.1e-10). Every sum starts from +0, so
 * a sum of -0s is +0, as in PyTorch.
 * ====================================================================== */

enum {
    SUM_LANES = 32,     /* independent running sums in a contiguous block */
    SUM_BLOCK = 512,    /* contiguous values summed directly */
    STRIDED_BLOCK = 32, /* strided values summed directly */
    ROW_BLOCK = 32,     /* rows added directly in a sum over rows */
    MAX_LEVELS = 64,    /* a binary counter of blocks: 2^64 of them at most */
};

/* The sum of n <= SUM_BLOCK contiguous values: SUM_LANES running sums
 * (vectorised, without one long chain of dependent additions), then added
 * pairwise. The order is fixed, whatever the vector width. */
static double sum_block(const double *x, int64_t n) {
    double acc[SUM_LANES] = {0};
    int64_t i = 0;
    for (; i + SUM_LANES <= n; i += SUM_LANES)
        for (int j = 0; j < SUM_LANES; j++) acc[j] += x[i + j];
    for (int j = 0; i < n; i++, j++) acc[j] += x[i];
    for (int width = SUM_LANES / 2; width > 0; width /= 2)
        for (int j = 0; j < width; j++) acc[j] += acc[j + width];
    return acc[0];
}

/* The sum of n <= STRIDED_BLOCK values at stride s, in order. */
static double sum_strided(const double *x, int64_t n, int64_t s) {
    double t = 0.0;
    for (int64_t i = 0; i < n; i++) t += x[i * s];
    return t;
}

/* The blocks are paired by a binary counter: level[j] holds the sum of 2^j
 * blocks not yet paired, and block b is paired with the levels below its
 * lowest 0 bit: the tree of recursive halving, without recursion. */
double ag_sum(const double *x, int64_t n, int64_t stride) {
    double level[MAX_LEVELS];
    int top = 0;
    int64_t count = 0, block = stride == 1 ? SUM_BLOCK : STRIDED_BLOCK;
    for (int64_t start = 0; start < n; start += block) {
        int64_t len = n - start < block ? n - start : block;
        double v = stride == 1 ? sum_block(x + start, len)
                               : sum_strided(x + start * stride, len, stride);
        for (int64_t c = count++; c & 1; c >>= 1) v = level[--top] + v;
        level[top++] = v;
    }
    double total = top > 0 ? level[--top] : 0.0;
    while (top > 0) total = level[--top] + total;
    return total;
}

/* Rows of scratch that sum_rows_pairwise needs for n rows (0 for one block). */
static int64_t row_levels(int64_t n) {
    int64_t levels = 0;
    if (n > ROW_BLOCK)
        for (int64_t blocks = (n + ROW_BLOCK - 1) / ROW_BLOCK; blocks > 0; blocks >>= 1) levels++;
    return levels;
}

/* dst = the sum of rows [start, end) of x (rows of len), from +0. */
static void sum_rows_direct(const double *x, int64_t start, int64_t end, int64_t len,
                            double *restrict dst) {
    const double *restrict first = x + start * len;
    for (int64_t i = 0; i < len; i++) dst[i] = 0.0 + first[i];
    for (int64_t k = start + 1; k < end; k++) {
        const double *restrict row = x + k * len;
        for (int64_t i = 0; i < len; i++) dst[i] += row[i];
    }
}

/* dst[i] = sum over k < n of x[k * len + i] (i < len), paired as in ag_sum
 * but a whole row at a time, so that the loops run along rows. scratch
 * holds row_levels(n) rows of len. */
static void sum_rows_pairwise(const double *x, int64_t n, int64_t len, double *dst,
                              double *scratch) {
    if (n <= ROW_BLOCK) {
        sum_rows_direct(x, 0, n, len, dst);
        return;
    }
    int64_t top = 0, count = 0;
    for (int64_t start = 0; start < n; start += ROW_BLOCK) {
        double *v = scratch + top * len;
        sum_rows_direct(x, start, n - start < ROW_BLOCK ? n : start + ROW_BLOCK, len, v);
        for (int64_t c = count++; c & 1; c >>= 1) {
            double *restrict left = scratch + --top * len;
            for (int64_t i = 0; i < len; i++) left[i] += v[i];
            v = left;
        }
        top++;
    }
    memcpy(dst, scratch + --top * len, (size_t)len * sizeof *dst);
    while (top > 0) {
        const double *restrict left = scratch + --top * len;
        for (int64_t i = 0; i < len; i++) dst[i] = left[i] + dst[i];
    }
}

/* out[o, i] = sum over k of x[o, k, i]; false (with a message) if the
 * scratch rows cannot be allocated. */
static bool sum_rows(const Tensor *x, AxisView v, double *out) {
    if (v.outer == 0 || v.inner == 0) return true; /* no output */
    if (v.n == 0) {                                /* sums of nothing */
        memset(out, 0, (size_t)(v.outer * v.inner) * sizeof *out);
        return true;
    }
    if (v.inner == 1) {
        for (int64_t o = 0; o < v.outer; o++) out[o] = ag_sum(x->data + o * v.n, v.n, 1);
        return true;
    }
    int64_t scratch_len = row_levels(v.n) * v.inner;
    Tensor *scratch = scratch_len > 0 ? ag_tensor_new(1, &scratch_len) : NULL;
    if (scratch_len > 0 && !scratch) return false;
    for (int64_t o = 0; o < v.outer; o++)
        sum_rows_pairwise(x->data + o * v.n * v.inner, v.n, v.inner, out + o * v.inner,
                          scratch ? scratch->data : NULL);
    tensor_release(scratch);
    return true;
}

/* ======================================================================
 * sum: out = sum of x (over the axis); dx = g spread over it
 * ====================================================================== */

static void sum_backward(Function *self, void *ctx, Tensor *g) {
    AxisCtx *c = ctx;
    Tensor *dx = spread_back(self->inputs[0], c->axis, g, 1.0);
    if (dx) ag_accumulate_grad(self->inputs[0], dx);
}

/* Sum (scaled by 1/n when mean) over axis, or everything when axis < 0. */
static Tensor *sum_forward(Tensor *x, int axis, bool mean) {
    Tensor *out = axis < 0 ? ag_tensor_new(0, NULL) : reduced_out(x, axis);
    if (!out) return NULL;
    AxisView v = axis < 0 ? (AxisView){1, x->numel, 1} : axis_view(x, axis);
    if (!sum_rows(x, v, out->data)) {
        tensor_release(out);
        return NULL;
    }
    if (mean)
        for (int64_t i = 0; i < out->numel; i++) out->data[i] /= (double)v.n;
    AxisCtx *c;
    out = ag_graph_record(out, mean ? AG_OP_MEAN : AG_OP_SUM, &x, 1, (void **)&c, sizeof *c);
    if (c) c->axis = axis;
    return out;
}

Tensor *tensor_sum(Tensor *x) {
    if (!x) return ag_fail("sum: argument is NULL");
    return sum_forward(x, -1, false);
}

Tensor *tensor_sum_axis(Tensor *x, int axis) {
    bool whole;
    axis = reduce_axis("sum", x, axis, &whole);
    return axis < 0 ? NULL : sum_forward(x, whole ? -1 : axis, false);
}

static Tensor *sum_call(const AgOpArgs *a) {
    return a->has_int[0] ? tensor_sum_axis(a->t[0], (int)a->ints[0]) : tensor_sum(a->t[0]);
}

const AgOpInfo ag_op_sum = {
    .id = AG_OP_SUM, .name = "sum", .signature = "sum(input, dim=None)", .params = "Ti",
    .help = "sum of all elements, or along dim (removed)",
    .rule = "grad_x = g, copied to every summed element", .backward_name = "SumBackward",
    .call = sum_call, .backward = sum_backward, .flags = AG_OP_METHOD,
};

/* ======================================================================
 * mean: out = sum / n; dx = g / n spread over the axis
 * (the mean of no elements is nan, as in PyTorch)
 * ====================================================================== */

static void mean_backward(Function *self, void *ctx, Tensor *g) {
    AxisCtx *c = ctx;
    Tensor *x = self->inputs[0];
    double n = c->axis < 0 ? (double)x->numel : (double)x->shape[c->axis];
    Tensor *dx = spread_back(x, c->axis, g, n);
    if (dx) ag_accumulate_grad(x, dx);
}

Tensor *tensor_mean(Tensor *x) {
    if (!x) return ag_fail("mean: argument is NULL");
    return sum_forward(x, -1, true);
}

Tensor *tensor_mean_axis(Tensor *x, int axis) {
    bool whole;
    axis = reduce_axis("mean", x, axis, &whole);
    return axis < 0 ? NULL : sum_forward(x, whole ? -1 : axis, true);
}

static Tensor *mean_call(const AgOpArgs *a) {
    return a->has_int[0] ? tensor_mean_axis(a->t[0], (int)a->ints[0]) : tensor_mean(a->t[0]);
}

const AgOpInfo ag_op_mean = {
    .id = AG_OP_MEAN, .name = "mean", .signature = "mean(input, dim=None)", .params = "Ti",
    .help = "mean of all elements, or along dim (removed)",
    .rule = "grad_x = g / n to each of the n averaged elements", .backward_name = "MeanBackward",
    .call = mean_call, .backward = mean_backward, .flags = AG_OP_METHOD,
};

/* ======================================================================
 * max: out = the largest value (a NaN wins, as in PyTorch).
 * Over everything, dx shares g equally among the elements equal to the
 * maximum (the nans, when it is nan), 0 elsewhere: PyTorch's
 * evenly_distribute_backward. Along an axis, dx = g at the first maximum
 * (the first nan) of each lane, whose index k ctx keeps, 0 elsewhere.
 * ====================================================================== */

typedef struct {
    int axis;
    int64_t argmax[]; /* one per output element */
} MaxCtx;

/* v is the maximum top: equal to it, or nan when it is nan. */
static bool is_top(double v, double top) { return isnan(top) ? isnan(v) != 0 : v == top; }

/* dx = g / count where x is the maximum top, else 0. */
static void spread_evenly(const Tensor *x, double top, double g, double *dx) {
    int64_t count = 0;
    for (int64_t k = 0; k < x->numel; k++) count += is_top(x->data[k], top);
    double share = g / (double)count;
    for (int64_t k = 0; k < x->numel; k++) dx[k] = is_top(x->data[k], top) ? share : 0.0;
}

/* dx[o, argmax, i] = g[o, i] (dx zeroed). Only for a g with elements: an
 * empty one may have 10^18 empty lanes. */
static void scatter_to_argmax(const int64_t *argmax, const double *g, AxisView v, double *dx) {
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t i = 0; i < v.inner; i++) {
            int64_t j = o * v.inner + i;
            dx[(o * v.n + argmax[j]) * v.inner + i] = g[j];
        }
}

static void max_backward(Function *self, void *ctx, Tensor *g) {
    MaxCtx *c = ctx;
    Tensor *x = self->inputs[0];
    Tensor *dx = ag_tensor_filled_like(x, 0.0);
    if (!dx) return;
    if (c->axis < 0)
        spread_evenly(x, self->output->data[0], g->data[0], dx->data);
    else if (g->numel > 0)
        scatter_to_argmax(c->argmax, g->data, axis_view(x, c->axis), dx->data);
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

/* out[o, i] = the maximum of x[o, :, i], its index into argmax (if not
 * NULL). Only for an out with elements. */
static void max_lanes(const Tensor *x, AxisView v, double *out, int64_t *argmax) {
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t i = 0; i < v.inner; i++) {
            int64_t k = argmax_along(x, v, o, i);
            out[o * v.inner + i] = x->data[(o * v.n + k) * v.inner + i];
            if (argmax) argmax[o * v.inner + i] = k;
        }
}

static Tensor *max_forward(Tensor *x, int axis) {
    AxisView v = axis < 0 ? (AxisView){1, x->numel, 1} : axis_view(x, axis);
    if (v.n == 0) return ag_fail("max: cannot take the maximum of an empty dimension");
    Tensor *out = axis < 0 ? ag_tensor_new(0, NULL) : reduced_out(x, axis);
    if (!out) return NULL;
    MaxCtx *c;
    out = ag_graph_record(out, AG_OP_MAX, &x, 1, (void **)&c,
                       sizeof *c + (size_t)out->numel * sizeof(int64_t));
    if (!out) return NULL;
    if (out->numel > 0) max_lanes(x, v, out->data, c ? c->argmax : NULL);
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

static Tensor *max_call(const AgOpArgs *a) {
    return a->has_int[0] ? tensor_max_axis(a->t[0], (int)a->ints[0]) : tensor_max(a->t[0]);
}

const AgOpInfo ag_op_max = {
    .id = AG_OP_MAX, .name = "max", .signature = "max(input, dim=None)", .params = "Ti",
    .help = "largest element, or along dim (removed)",
    .rule = "grad_x = g shared equally by the tied maxima (along an axis: g to the first), "
            "0 elsewhere",
    .backward_name = "MaxBackward", .call = max_call, .backward = max_backward,
    .flags = AG_OP_METHOD,
};
